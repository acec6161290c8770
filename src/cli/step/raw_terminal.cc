#include "cli/step/raw_terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>

namespace rota::cli {
namespace {

// The mode to put back, for the exit and signal paths, which cannot reach
// the object. Written before the handlers are installed, only read after.
termios saved_mode;
volatile sig_atomic_t saved_fd = -1;

void RestoreSaved() {
  const int fd = saved_fd;
  if (fd >= 0) tcsetattr(fd, TCSANOW, &saved_mode);
}

// The signals that end srun by default and that srun does not handle itself.
constexpr int kFatalSignals[] = {SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
                                 SIGSEGV, SIGBUS,    SIGFPE,  SIGILL,  SIGABRT};

void OnFatalSignal(int sig) {
  RestoreSaved();
  // Die of it as intended: the default action, raised again.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

std::optional<WindowSize> TerminalWindowSize(int fd) {
  winsize size{};
  if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) return std::nullopt;
  return WindowSize{size.ws_row, size.ws_col};
}

std::optional<RawTerminal> RawTerminal::Enter(int fd) {
  if (saved_fd >= 0 || !isatty(fd) || tcgetattr(fd, &saved_mode) != 0) return std::nullopt;
  termios raw = saved_mode;
  cfmakeraw(&raw);
  // Reads return what is there, at least one byte.
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  saved_fd = fd;
  static bool at_exit_registered = false;
  if (!at_exit_registered) {
    at_exit_registered = true;
    std::atexit(RestoreSaved);
  }
  for (int sig : kFatalSignals) {
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    // A handler someone else installed (a sanitizer's) stays.
    if (current.sa_handler == SIG_DFL) signal(sig, OnFatalSignal);
  }
  if (tcsetattr(fd, TCSANOW, &raw) != 0) {
    saved_fd = -1;
    return std::nullopt;
  }
  return RawTerminal(fd);
}

RawTerminal::RawTerminal(RawTerminal&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

RawTerminal& RawTerminal::operator=(RawTerminal&& other) noexcept {
  if (this != &other) {
    Restore();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

RawTerminal::~RawTerminal() { Restore(); }

void RawTerminal::Restore() {
  if (fd_ < 0) return;
  RestoreSaved();
  saved_fd = -1;
  fd_ = -1;
}

}  // namespace rota::cli
