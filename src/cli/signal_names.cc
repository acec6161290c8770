#include "cli/signal_names.h"

#include <csignal>

#include "common/strings.h"

namespace rota::cli {
namespace {

struct SignalName {
  std::string_view name;
  int number;
};

constexpr SignalName kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
    {"KILL", SIGKILL}, {"ALRM", SIGALRM},     {"TERM", SIGTERM}, {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"CONT", SIGCONT},     {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},   {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
};

}  // namespace

std::optional<int> ParseSignal(std::string_view text) {
  if (std::optional<uint64_t> n = ParseUint(text)) {
    if (*n >= 1 && *n < 65) return static_cast<int>(*n);
    return std::nullopt;
  }
  std::string_view name = text;
  if (StartsWithIgnoreCase(name, "SIG")) name.remove_prefix(3);
  for (const SignalName& s : kSignals) {
    if (EqualsIgnoreCase(name, s.name)) return s.number;
  }
  return std::nullopt;
}

}  // namespace rota::cli
