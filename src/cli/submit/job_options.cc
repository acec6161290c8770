#include "cli/submit/job_options.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cli/event_time.h"
#include "cli/submit/container_options.h"
#include "cli/submit/hostfile.h"
#include "cli/submit/propagated_limits.h"
#include "common/duration.h"
#include "common/gres_spec.h"
#include "common/mem_bind_spec.h"
#include "common/memory_size.h"
#include "common/resource_limits.h"
#include "common/strings.h"
#include "model/mail_type.h"
#include "model/task_distribution.h"

namespace rota::cli {

// The parse in progress: the output, where messages go, and the bookkeeping
// that spans several options (the --mem family).
class OptionSink {
 public:
  // Bits of memory_in_layer_.
  static constexpr uint8_t kMem = 1, kMemPerCpu = 2, kMemPerGpu = 4;

  OptionSink(Command command, const JobOptionsContext& context, ParsedJobOptions* out)
      : command_(command), context_(context), out_(out) {}

  Command command() const { return command_; }
  std::string_view prog() const { return CommandName(command_); }
  const JobOptionsContext& context() const { return context_; }
  ParsedJobOptions& out() { return *out_; }
  wire::JobSpec& spec() { return out_->spec; }

  Status Error(std::string_view text) const { return Line("error", text); }
  Status Fatal(std::string_view text) const { return Line("fatal", text); }
  void Warn(std::string_view text) {
    out_->warnings.push_back(std::string(prog()) + ": warning: " + std::string(text));
  }

  // --mem, --mem-per-cpu and --mem-per-gpu exclude each other within one
  // source; a source that sets any of them replaces what lower sources set,
  // so "#SBATCH --mem-per-cpu=2G" plus "sbatch --mem=8G" means --mem=8G.
  void BeginMemoryOption(uint8_t bit) {
    if (memory_in_layer_ == 0) {
      spec().set_mem_per_node_mb(0);
      spec().set_mem_given(false);
      spec().set_mem_per_cpu_mb(0);
      spec().set_mem_per_gpu_mb(0);
    }
    memory_in_layer_ |= bit;
  }
  // The sources, in the order they are applied.
  enum Layer { kScript = 0, kEnvironment = 1, kCommandLine = 2 };

  // Records that `option` was given in the source being applied.
  void NoteGiven(std::string_view option) { given_in_[std::string(option)] = layer_; }
  // The last source that gave `option`; nullopt when none did.
  std::optional<Layer> GivenIn(std::string_view option) const {
    auto it = given_in_.find(option);
    if (it == given_in_.end()) return std::nullopt;
    return it->second;
  }

  // Called after each source.
  Status EndLayer() {
    const bool clash = std::popcount(memory_in_layer_) > 1;
    memory_in_layer_ = 0;
    if (layer_ != kCommandLine) layer_ = static_cast<Layer>(layer_ + 1);
    if (clash) return Fatal("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
    return Status::Ok();
  }

 private:
  Status Line(std::string_view level, std::string_view text) const {
    return InvalidArgument(std::string(prog()) + ": " + std::string(level) + ": " +
                           std::string(text));
  }

  Command command_;
  const JobOptionsContext& context_;
  ParsedJobOptions* out_;
  uint8_t memory_in_layer_ = 0;
  Layer layer_ = kScript;
  std::map<std::string, Layer, std::less<>> given_in_;
};

std::string_view CommandName(Command command) {
  switch (command) {
    case Command::kSbatch:
      return "sbatch";
    case Command::kSrun:
      return "srun";
    case Command::kSalloc:
      return "salloc";
  }
  return "sbatch";
}

std::string UmaskText(unsigned mask) {
  return fmt::format("0{}{}{}", (mask >> 6) & 07, (mask >> 3) & 07, mask & 07);
}

void ExportUmask() {
  if (std::getenv("SLURM_UMASK") != nullptr) return;
  const mode_t mask = umask(0);
  umask(mask);
  setenv("SLURM_UMASK", UmaskText(mask).c_str(), 0);
}

Environment EnvironmentFromEnvp(const char* const* envp) {
  Environment env;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    std::string_view entry(*envp);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

namespace {

constexpr CommandSet kSb = CommandBit(Command::kSbatch);
constexpr CommandSet kSr = CommandBit(Command::kSrun);
constexpr CommandSet kSa = CommandBit(Command::kSalloc);
constexpr CommandSet kAll = kSb | kSr | kSa;

// Slurm's bound for --nice: its NICE_OFFSET less a safety margin.
constexpr int64_t kMaxNice = 2147483645;

std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string Dashed(const JobOption& option) { return "--" + std::string(option.name); }

Status InvalidSpecification(OptionSink& sink, const JobOption& option) {
  return sink.Error("Invalid " + Dashed(option) + " specification");
}

// ---- Value checks. Values are kept as given where the wire type is a
// string; these only refuse what the controller could never accept, so the
// user hears about it before a round trip. ----

// Slurm parses counts as a positive C int.
std::optional<uint32_t> ParsePositiveCount(std::string_view text) {
  std::optional<uint64_t> n = ParseUint(text);
  if (!n || *n == 0 || *n > INT_MAX) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

// "N" or "min-max".
bool ParseNodeRange(std::string_view text, uint32_t* min_nodes, uint32_t* max_nodes) {
  size_t dash = text.find('-');
  std::optional<uint32_t> low = ParsePositiveCount(text.substr(0, dash));
  if (!low) return false;
  *min_nodes = *low;
  *max_nodes = 0;  // Proto: 0 means "same as min_nodes".
  if (dash == std::string_view::npos) return true;
  std::optional<uint32_t> high = ParsePositiveCount(text.substr(dash + 1));
  if (!high || *high < *low) return false;
  *max_nodes = *high;
  return true;
}

// --gpus and its per-X forms: a list of "[type:]count" ("gpu:type:count" is
// tolerated, as Slurm tolerates the gres name).
bool IsGpuCountList(std::string_view text) {
  if (text.empty()) return false;
  for (std::string_view item : Split(text, ',')) {
    std::vector<std::string_view> fields = Split(item, ':');
    if (fields.size() == 3 && fields[0] == "gpu") fields.erase(fields.begin());
    if (fields.size() > 2) return false;
    if (fields.size() == 2 && fields[0].empty()) return false;
    if (!ParseGresCount(fields.back()).ok()) return false;
  }
  return true;
}

// "1-10", "1,3,5-7", "0-15:4", any of them followed by "%N".
bool IsArraySpec(std::string_view text) {
  if (size_t percent = text.find('%'); percent != std::string_view::npos) {
    if (!ParsePositiveCount(text.substr(percent + 1))) return false;
    text = text.substr(0, percent);
  }
  if (text.empty()) return false;
  for (std::string_view item : Split(text, ',')) {
    size_t colon = item.find(':');
    std::string_view range = item.substr(0, colon);
    if (colon != std::string_view::npos && !ParsePositiveCount(item.substr(colon + 1))) {
      return false;
    }
    size_t dash = range.find('-');
    std::optional<uint64_t> first = ParseUint(range.substr(0, dash));
    if (!first) return false;
    if (dash == std::string_view::npos) {
      if (colon != std::string_view::npos) return false;  // A step needs a range.
      continue;
    }
    std::optional<uint64_t> last = ParseUint(range.substr(dash + 1));
    if (!last || *last < *first) return false;
  }
  return true;
}

bool IsSignalName(std::string_view text) {
  static constexpr std::array<std::string_view, 25> kNames = {
      "HUP",  "INT",  "QUIT", "ILL",  "TRAP", "ABRT", "BUS",   "FPE",  "KILL",
      "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "CHLD",  "CONT", "STOP",
      "TSTP", "TTIN", "TTOU", "URG",  "XCPU", "XFSZ", "VTALRM"};
  if (StartsWithIgnoreCase(text, "SIG")) text.remove_prefix(3);
  if (std::optional<uint64_t> n = ParseUint(text)) return *n >= 1 && *n <= 64;
  return std::any_of(kNames.begin(), kNames.end(),
                     [&](std::string_view name) { return EqualsIgnoreCase(name, text); });
}

// [{R|B}:]SIG[@seconds]
bool IsSignalSpec(std::string_view text) {
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    std::string_view flags = text.substr(0, colon);
    if (flags.empty() || flags.find_first_not_of("RBrb") != std::string_view::npos) return false;
    text = text.substr(colon + 1);
  }
  if (size_t at = text.find('@'); at != std::string_view::npos) {
    std::optional<uint64_t> secs = ParseUint(text.substr(at + 1));
    if (!secs || *secs > 0xffff) return false;
    text = text.substr(0, at);
  }
  return IsSignalName(text);
}

// N[@max-wait-time]
bool IsSwitchesSpec(std::string_view text) {
  size_t at = text.find('@');
  if (!ParseUint(text.substr(0, at))) return false;
  return at == std::string_view::npos || ParseDuration(text.substr(at + 1)).ok();
}

bool IsGresFlags(std::string_view text) {
  static constexpr std::array<std::string_view, 5> kFlags = {
      "enforce-binding", "disable-binding", "one-task-per-sharing", "multiple-tasks-per-sharing",
      "allow-task-sharing"};
  for (std::string_view flag : Split(text, ',')) {
    if (std::none_of(kFlags.begin(), kFlags.end(),
                     [&](std::string_view known) { return EqualsIgnoreCase(known, flag); })) {
      return false;
    }
  }
  return true;
}

// ---- Appliers: one per kind of option. ----

template <std::string* (wire::JobSpec::*Field)()>
Status SetString(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  *(sink.spec().*Field)() = std::string(value);
  return Status::Ok();
}

template <void (wire::JobSpec::*Field)(uint32_t)>
Status SetCount(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  std::optional<uint32_t> n = ParsePositiveCount(value);
  if (!n)
    return sink.Error("Invalid numeric value " + Quoted(value) + " for " + Dashed(option) + ".");
  (sink.spec().*Field)(*n);
  return Status::Ok();
}

template <void (wire::JobSpec::*Field)(bool)>
Status SetFlag(OptionSink& sink, const JobOption&, std::string_view, bool) {
  (sink.spec().*Field)(true);
  return Status::Ok();
}

// The command's own switches, outside the spec.
template <bool ParsedJobOptions::*Field>
Status SetCommandFlag(OptionSink& sink, const JobOption&, std::string_view, bool) {
  sink.out().*Field = true;
  return Status::Ok();
}

template <std::string* (wire::JobSpec::*Field)(), bool (*Valid)(std::string_view)>
Status SetChecked(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  if (!Valid(value)) return InvalidSpecification(sink, option);
  *(sink.spec().*Field)() = std::string(value);
  return Status::Ok();
}

Status SetNodes(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  uint32_t min_nodes = 0, max_nodes = 0;
  if (!ParseNodeRange(value, &min_nodes, &max_nodes)) {
    return sink.Error("invalid node count `" + std::string(value) + "'");
  }
  sink.spec().set_min_nodes(min_nodes);
  sink.spec().set_max_nodes(max_nodes);
  return Status::Ok();
}

template <uint8_t Bit>
Status SetMemory(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  Result<MemoryMb> mb = ParseMemoryOption(value);
  if (!mb.ok()) return sink.Error("invalid memory constraint: " + std::string(value));
  sink.BeginMemoryOption(Bit);
  switch (Bit) {
    case OptionSink::kMem:
      sink.spec().set_mem_per_node_mb(*mb);
      sink.spec().set_mem_given(true);  // --mem=0 means "all the node's memory".
      break;
    case OptionSink::kMemPerCpu:
      sink.spec().set_mem_per_cpu_mb(*mb);
      break;
    case OptionSink::kMemPerGpu:
      sink.spec().set_mem_per_gpu_mb(*mb);
      break;
  }
  return Status::Ok();
}

Status SetTime(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  Result<DurationSecs> secs = ParseTimeOption(value);
  if (!secs.ok()) return InvalidSpecification(sink, option);
  int64_t wire_secs = *secs == kInfiniteDuration ? -1 : *secs;
  if (option.name == "time") {
    // Slurm: a time limit of zero requests no limit at all.
    sink.spec().set_time_limit_s(wire_secs == 0 ? -1 : wire_secs);
  } else {
    sink.spec().set_time_min_s(wire_secs);
  }
  return Status::Ok();
}

Status SetEventTime(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  Result<int64_t> when = ParseEventTime(value, sink.context().now);
  if (!when.ok()) return InvalidSpecification(sink, option);
  if (option.name == "begin") {
    sink.spec().set_begin_time(*when);
  } else {
    sink.spec().set_deadline(*when);
  }
  return Status::Ok();
}

Status SetGres(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  if (EqualsIgnoreCase(value, "none")) {  // Clears a --gres from a lower source.
    sink.spec().clear_gres();
    return Status::Ok();
  }
  if (value.empty() || !ParseGresList(value).ok()) return InvalidSpecification(sink, option);
  sink.spec().set_gres(std::string(value));
  return Status::Ok();
}

Status SetChdir(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  std::string dir(value);
  const std::string& cwd = sink.context().cwd;
  if (!dir.empty() && dir.front() != '/' && !cwd.empty()) {
    dir = cwd + (cwd.back() == '/' ? "" : "/") + dir;
  }
  sink.spec().set_work_dir(dir);
  return Status::Ok();
}

Status SetExclusive(OptionSink& sink, const JobOption& option, std::string_view value,
                    bool has_value) {
  if (has_value) {
    // No wire field for the sharing mode yet: whole nodes is the safe reading.
    if (!EqualsIgnoreCase(value, "user") && !EqualsIgnoreCase(value, "mcs") &&
        !EqualsIgnoreCase(value, "topo")) {
      return InvalidSpecification(sink, option);
    }
    sink.Warn("--exclusive=" + std::string(value) +
              " is not supported yet; the job will get whole nodes to itself");
  }
  sink.spec().set_exclusive(true);
  return Status::Ok();
}

Status SetArray(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  if (!IsArraySpec(value)) return InvalidSpecification(sink, option);
  sink.spec().set_array(std::string(value));  // Kept verbatim: the controller expands it.
  return Status::Ok();
}

template <int32_t Mode>
Status SetRequeue(OptionSink& sink, const JobOption&, std::string_view, bool) {
  sink.spec().set_requeue(Mode);
  return Status::Ok();
}

Status SetNice(OptionSink& sink, const JobOption& option, std::string_view value, bool has_value) {
  int64_t nice = 100;  // Slurm's value for a bare --nice.
  if (has_value) {
    std::optional<int64_t> n = ParseInt(value);
    if (!n)
      return sink.Error("Invalid numeric value " + Quoted(value) + " for " + Dashed(option) + ".");
    if (*n > kMaxNice || *n < -kMaxNice) {
      return sink.Error("Nice value out of range (+/- " + std::to_string(kMaxNice) + ")");
    }
    nice = *n;
  }
  sink.spec().set_nice(static_cast<int32_t>(nice));
  return Status::Ok();
}

Status SetOpenMode(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  // Slurm decides by the first letter, so "a", "App" and "append" all append.
  const char first = value.empty() ? '\0' : value.front();
  if (first == 'a' || first == 'A') {
    sink.spec().set_open_mode("append");
  } else if (first == 't' || first == 'T') {
    sink.spec().set_open_mode("truncate");
  } else {
    return sink.Error("Invalid --open-mode argument: " + std::string(value) + ".");
  }
  return Status::Ok();
}

// --mail-type: kept as its event bits (model/mail_type.h).
Status SetMailType(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  std::optional<uint32_t> events = model::ParseMailType(value);
  if (!events) return sink.Error("--mail-type=" + std::string(value) + " invalid");
  sink.spec().set_mail_type(*events);
  return Status::Ok();
}

Status SubmitRefusal(const OptionSink& sink, std::string_view why, std::string_view answer);

// The text of --export-file's argument: a file, or an open descriptor when
// it is a number (as Slurm reads it).
Result<std::string> ReadExportFile(std::string_view where) {
  std::optional<uint64_t> fd_number = ParseUint(where);
  const int fd = fd_number && *fd_number <= INT_MAX
                     ? static_cast<int>(*fd_number)
                     : open(std::string(where).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument("cannot open " + std::string(where) + ": " + strerror(errno));
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  const int read_errno = errno;
  if (!fd_number) close(fd);
  if (n < 0) {
    return InvalidArgument("cannot read " + std::string(where) + ": " + strerror(read_errno));
  }
  return text;
}

// --priority: a number, or TOP for the highest a job can have. Only
// operators may set it; the controller checks that.
Status SetPriority(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  constexpr uint32_t kTop = 0xfffffffd;  // Below Slurm's NO_VAL markers, as TOP is.
  if (EqualsIgnoreCase(value, "TOP")) {
    sink.spec().set_requested_priority(kTop);
    return Status::Ok();
  }
  std::optional<uint64_t> n = ParseUint(value);
  if (!n || *n > kTop) {
    return sink.Error("Invalid numeric value " + Quoted(value) + " for " + Dashed(option) + ".");
  }
  sink.spec().set_requested_priority(static_cast<uint32_t>(*n));
  return Status::Ok();
}

// --hint: one of Slurm's hint words.
Status SetHint(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  Status checked = CheckHint(value);
  if (!checked.ok()) return sink.Error(std::string(checked.message()));
  sink.spec().set_hint(std::string(value));
  return Status::Ok();
}

// --mem-bind: as the node daemon reads it (common/mem_bind_spec.h).
bool IsMemBindSpec(std::string_view text) { return !text.empty() && ParseMemBindSpec(text).ok(); }

// -m/--distribution: FIRST[:SECOND[:THIRD]][,Pack|NoPack], as srun checks it.
bool IsDistributionSpec(std::string_view text) {
  return !text.empty() && model::ParseTaskDistribution(text).ok();
}

// --acctg-freq: N, or a list of TYPE=N (task, energy, network, filesystem).
bool IsAcctgFreqSpec(std::string_view text) {
  if (text.empty()) return false;
  for (std::string_view item : Split(text, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (!ParseUint(item)) return false;
      continue;
    }
    std::string_view type = item.substr(0, eq);
    if (!EqualsIgnoreCase(type, "task") && !EqualsIgnoreCase(type, "energy") &&
        !EqualsIgnoreCase(type, "network") && !EqualsIgnoreCase(type, "filesystem")) {
      return false;
    }
    if (!ParseUint(item.substr(eq + 1))) return false;
  }
  return true;
}

// -B/--extra-node-info: SOCKETS[:CORES[:THREADS]], each a count or "*".
Status SetExtraNodeInfo(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  std::vector<std::string_view> parts = Split(value, ':');
  if (parts.empty() || parts.size() > 3) return InvalidSpecification(sink, option);
  std::array<uint32_t, 3> counts = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "*") continue;
    std::optional<uint32_t> n = ParsePositiveCount(parts[i]);
    if (!n) return InvalidSpecification(sink, option);
    counts[i] = *n;
  }
  sink.spec().set_sockets_per_node(counts[0]);
  sink.spec().set_cores_per_socket(counts[1]);
  sink.spec().set_threads_per_core(counts[2]);
  return Status::Ok();
}

// --tmp: a size in MB, or with a K/M/G/T suffix.
Status SetTmp(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  Result<MemoryMb> mb = ParseMemoryOption(value);
  if (!mb.ok()) return InvalidSpecification(sink, option);
  sink.spec().set_tmp_disk_mb(*mb);
  return Status::Ok();
}

// --kill-on-invalid-dep=yes|no.
Status SetKillOnInvalidDep(OptionSink& sink, const JobOption& option, std::string_view value,
                           bool) {
  std::optional<bool> yes = ParseBool(value);
  if (!yes) return InvalidSpecification(sink, option);
  sink.spec().set_kill_on_invalid_dep(*yes ? 1 : 2);
  return Status::Ok();
}

// -k/--no-kill[=off].
Status SetNoKill(OptionSink& sink, const JobOption& option, std::string_view value,
                 bool has_value) {
  if (has_value && !EqualsIgnoreCase(value, "off")) return InvalidSpecification(sink, option);
  sink.spec().set_no_kill(!has_value);
  return Status::Ok();
}

// --delay-boot: minutes as a time value; Rota reboots no nodes, so it is
// checked and not kept.
Status CheckDelayBoot(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  if (!ParseTimeOption(value).ok()) return InvalidSpecification(sink, option);
  return Status::Ok();
}

// --get-user-env[=TIMEOUT][S|L]: the job already starts with the submitter's
// environment (--export=ALL); the login environment is not rebuilt.
Status CheckGetUserEnv(OptionSink& sink, const JobOption& option, std::string_view value,
                       bool has_value) {
  if (!has_value) return Status::Ok();
  std::string_view rest = value;
  if (!rest.empty() && (rest.back() == 'S' || rest.back() == 'L')) rest.remove_suffix(1);
  if (!rest.empty() && !ParseUint(rest)) return InvalidSpecification(sink, option);
  return Status::Ok();
}

// --uid/--gid: only root may submit for another user; Rota's controller
// takes the user from the credential, so even root is told.
Status RefuseUidGid(OptionSink& sink, const JobOption& option, std::string_view, bool) {
  if (getuid() != 0) return sink.Error(Dashed(option) + " only permitted by root user");
  return sink.Error(Dashed(option) +
                    " is not supported: the job runs as the user whose credential submits it");
}

// --bb/--bbf: no burst buffer plugin exists in Rota.
Status RefuseBurstBuffer(OptionSink& sink, const JobOption& option, std::string_view, bool) {
  return SubmitRefusal(sink, Dashed(option) + ": burst buffers are not configured on this cluster",
                       "Burst Buffer request invalid");
}

// --propagate[=LIMIT,...]: which of the command's limits the job gets,
// instead of slurm.conf's PropagateResourceLimits.
Status SetPropagate(OptionSink& sink, const JobOption& option, std::string_view value,
                    bool has_value) {
  Result<std::vector<std::string>> names = ParsePropagateOption(value, has_value);
  if (!names.ok()) return InvalidSpecification(sink, option);
  sink.out().propagate = std::move(*names);
  return Status::Ok();
}

// -I/--immediate[=SECONDS].
Status SetImmediate(OptionSink& sink, const JobOption& option, std::string_view value,
                    bool has_value) {
  uint32_t seconds = 0;
  if (has_value) {
    std::optional<uint64_t> n = ParseUint(value);
    if (!n || *n > INT_MAX) {
      return sink.Error("Invalid numeric value " + Quoted(value) + " for " + Dashed(option) + ".");
    }
    seconds = static_cast<uint32_t>(*n);
  }
  sink.out().immediate_s = seconds;
  return Status::Ok();
}

// -F/--nodefile: node names in a file, separated by blanks, commas or
// newlines, as -w would take them.
// -m: checked and kept for the job's steps (SLURM_DISTRIBUTION). With
// arbitrary, the job takes the nodes SLURM_HOSTFILE names, and as many tasks
// as it has lines unless -n says; a later -w or -n wins.
Status SetDistribution(OptionSink& sink, const JobOption& option, std::string_view value,
                       bool last) {
  ROTA_RETURN_IF_ERROR((SetChecked<&wire::JobSpec::mutable_distribution, IsDistributionSpec>(
      sink, option, value, last)));
  const char* file = std::getenv("SLURM_HOSTFILE");
  if (!StartsWithIgnoreCase(value, "arbitrary") || file == nullptr || *file == '\0') {
    return Status::Ok();
  }
  Result<Hostfile> hosts = ReadHostfile(file, 0);
  if (!hosts.ok()) return sink.Error(Dashed(option) + ": " + hosts.status().message());
  sink.spec().set_nodelist(Join(hosts->nodes, ","));
  if (sink.spec().num_tasks() == 0) {
    sink.spec().set_num_tasks(static_cast<uint32_t>(hosts->task_hosts.size()));
  }
  return Status::Ok();
}

Status SetNodeFile(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  std::ifstream in{std::string(value)};
  if (!in) return sink.Error(Dashed(option) + ": cannot open " + std::string(value));
  std::vector<std::string> names;
  std::string word;
  while (in >> word) {
    for (std::string_view name : SplitOutsideBrackets(word, ',')) {
      if (!name.empty()) names.emplace_back(name);
    }
  }
  if (names.empty()) return sink.Error(Dashed(option) + ": no node names in " + std::string(value));
  sink.spec().set_nodelist(Join(names, ","));
  return Status::Ok();
}

// Options whose request Rota has no machinery for, refused by name.
Status RefuseUnsupported(OptionSink& sink, const JobOption& option, std::string_view, bool) {
  std::string_view why = "not supported";
  if (option.name == "core-spec" || option.name == "thread-spec") {
    why = "core specialization is not supported (no cores are kept for the system)";
  } else if (option.name == "mcs-label") {
    why = "MCS labels are not supported (no MCS plugin)";
  } else if (option.name == "batch") {
    why = "choosing the batch step's node by features is not supported";
  }
  return sink.Error(Dashed(option) + ": " + std::string(why));
}

// The container options (container_options.h).
Status SetContainer(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  std::string absolute;
  if (option.name == "container" && !value.empty() && value[0] != '/') {
    // The bundle is found on the node, whose working directory is not ours.
    std::error_code ec;
    absolute = (std::filesystem::current_path(ec) / value).string();
    value = absolute;
  }
  Status applied = ApplyContainerOption(option.name, value, *sink.spec().mutable_container());
  if (!applied.ok()) return sink.Error(Dashed(option) + ": " + applied.message());
  return Status::Ok();
}

// --profile: Slurm's profiling types, checked; Rota gathers no HDF5 profile.
bool IsProfileSpec(std::string_view text) {
  for (std::string_view item : Split(text, ',')) {
    if (!EqualsIgnoreCase(item, "all") && !EqualsIgnoreCase(item, "none") &&
        !EqualsIgnoreCase(item, "energy") && !EqualsIgnoreCase(item, "task") &&
        !EqualsIgnoreCase(item, "lustre") && !EqualsIgnoreCase(item, "network")) {
      return false;
    }
  }
  return !text.empty();
}

// --wait-all-nodes=0|1.
bool IsZeroOrOne(std::string_view text) { return text == "0" || text == "1"; }

// Accepted once checked, and not kept: nothing in Rota acts on it.
template <bool (*Valid)(std::string_view)>
Status CheckOnly(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  if (!Valid(value)) return InvalidSpecification(sink, option);
  return Status::Ok();
}

bool IsNonEmpty(std::string_view text) { return !text.empty(); }

// --export-file=FILE|FD: NAME=value entries separated by NULs or newlines,
// added to the job's environment (after --export's selection).
Status SetExportFile(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  Result<std::string> text = ReadExportFile(value);
  if (!text.ok()) return sink.Error(Dashed(option) + ": " + text.status().message());
  std::replace(text->begin(), text->end(), '\0', '\n');
  for (std::string_view line : Split(*text, '\n')) {
    if (line.empty()) continue;
    if (line.find('=') == std::string_view::npos || line.front() == '=') {
      return sink.Error(Dashed(option) + ": not NAME=value: " + std::string(line));
    }
    sink.out().export_file_entries.push_back(std::string(line));
  }
  return Status::Ok();
}

Status SetExport(OptionSink& sink, const JobOption& option, std::string_view value, bool) {
  for (std::string_view item : Split(value, ',')) {
    if (!item.empty() && item.front() == '=') return InvalidSpecification(sink, option);
  }
  sink.spec().set_export_env(std::string(value));
  return Status::Ok();
}

Status SetWrap(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  sink.out().wrap_given = true;
  sink.out().wrap = std::string(value);
  return Status::Ok();
}

// srun's options for its step, not its allocation: srun acts on them itself
// (srun_options.h); here they are only let through.
Status StepOnly(OptionSink&, const JobOption&, std::string_view, bool) { return Status::Ok(); }

Status SetClusters(OptionSink& sink, const JobOption&, std::string_view value, bool) {
  sink.out().clusters = std::string(value);
  return Status::Ok();
}

Status CountVerbose(OptionSink& sink, const JobOption&, std::string_view, bool) {
  ++sink.out().verbose;
  return Status::Ok();
}

using S = wire::JobSpec;
using P = ParsedJobOptions;
using A = ArgKind;

// The table. Entries with the same long name must not share a command.
const JobOption kJobOptions[] = {
    {"job-name", 'J', A::kRequired, kAll, &SetString<&S::mutable_name>},
    {"partition", 'p', A::kRequired, kAll, &SetString<&S::mutable_partition>},
    {"account", 'A', A::kRequired, kAll, &SetString<&S::mutable_account>},
    {"qos", 'q', A::kRequired, kAll, &SetString<&S::mutable_qos>},
    {"nodes", 'N', A::kRequired, kAll, &SetNodes},
    {"ntasks", 'n', A::kRequired, kAll, &SetCount<&S::set_num_tasks>},
    {"ntasks-per-node", 0, A::kRequired, kAll, &SetCount<&S::set_ntasks_per_node>},
    {"ntasks-per-socket", 0, A::kRequired, kAll, &SetCount<&S::set_ntasks_per_socket>},
    {"ntasks-per-gpu", 0, A::kRequired, kAll, &SetCount<&S::set_ntasks_per_gpu>},
    {"sockets-per-node", 0, A::kRequired, kAll, &SetCount<&S::set_sockets_per_node>},
    {"cpus-per-task", 'c', A::kRequired, kAll, &SetCount<&S::set_cpus_per_task>},
    {"cpus-per-gpu", 0, A::kRequired, kAll, &SetCount<&S::set_cpus_per_gpu>},
    {"mem", 0, A::kRequired, kAll, &SetMemory<OptionSink::kMem>},
    {"mem-per-cpu", 0, A::kRequired, kAll, &SetMemory<OptionSink::kMemPerCpu>},
    {"mem-per-gpu", 0, A::kRequired, kAll, &SetMemory<OptionSink::kMemPerGpu>},
    {"gres", 0, A::kRequired, kAll, &SetGres},
    {"gres-flags", 0, A::kRequired, kAll, &SetChecked<&S::mutable_gres_flags, IsGresFlags>},
    {"gpus", 'G', A::kRequired, kAll, &SetChecked<&S::mutable_gpus, IsGpuCountList>},
    {"gpus-per-node", 0, A::kRequired, kAll,
     &SetChecked<&S::mutable_gpus_per_node, IsGpuCountList>},
    {"gpus-per-task", 0, A::kRequired, kAll,
     &SetChecked<&S::mutable_gpus_per_task, IsGpuCountList>},
    {"gpus-per-socket", 0, A::kRequired, kAll,
     &SetChecked<&S::mutable_gpus_per_socket, IsGpuCountList>},
    {"gpu-bind", 0, A::kRequired, kAll, &SetString<&S::mutable_gpu_bind>},
    {"gpu-freq", 0, A::kRequired, kAll, &SetString<&S::mutable_gpu_freq>},
    {"cpu-bind", 0, A::kRequired, kAll, &SetString<&S::mutable_cpu_bind>},
    {"time", 't', A::kRequired, kAll, &SetTime},
    {"time-min", 0, A::kRequired, kAll, &SetTime},
    {"output", 'o', A::kRequired, kSb | kSr, &SetString<&S::mutable_std_out>},
    {"error", 'e', A::kRequired, kSb | kSr, &SetString<&S::mutable_std_err>},
    {"input", 'i', A::kRequired, kSb | kSr, &SetString<&S::mutable_std_in>},
    {"open-mode", 0, A::kRequired, kSb | kSr, &SetOpenMode},
    {"chdir", 'D', A::kRequired, kAll, &SetChdir},
    {"exclusive", 0, A::kOptional, kAll, &SetExclusive},
    {"constraint", 'C', A::kRequired, kAll, &SetString<&S::mutable_constraint>},
    {"nodelist", 'w', A::kRequired, kAll, &SetString<&S::mutable_nodelist>},
    {"exclude", 'x', A::kRequired, kAll, &SetString<&S::mutable_exclude>},
    {"reservation", 0, A::kRequired, kAll, &SetString<&S::mutable_reservation>},
    {"comment", 0, A::kRequired, kAll, &SetString<&S::mutable_comment>},
    {"licenses", 'L', A::kRequired, kAll, &SetString<&S::mutable_licenses>},
    {"mail-type", 0, A::kRequired, kAll, &SetMailType},
    {"mail-user", 0, A::kRequired, kAll, &SetString<&S::mutable_mail_user>},
    {"overcommit", 'O', A::kNone, kAll, &SetFlag<&S::set_overcommit>},
    {"contiguous", 0, A::kNone, kAll, &SetFlag<&S::set_contiguous>},
    {"array", 'a', A::kRequired, kSb, &SetArray},
    {"dependency", 'd', A::kRequired, kAll, &SetString<&S::mutable_dependency>},
    {"hold", 'H', A::kNone, kAll, &SetFlag<&S::set_hold>},
    // srun has --begin but not -b.
    {"begin", 'b', A::kRequired, kSb | kSa, &SetEventTime},
    {"begin", 0, A::kRequired, kSr, &SetEventTime},
    {"deadline", 0, A::kRequired, kAll, &SetEventTime},
    {"requeue", 0, A::kNone, kSb, &SetRequeue<1>},
    {"no-requeue", 0, A::kNone, kSb, &SetRequeue<2>},
    {"nice", 0, A::kOptional, kAll, &SetNice},
    {"signal", 0, A::kRequired, kAll, &SetChecked<&S::mutable_signal, IsSignalSpec>},
    {"switches", 0, A::kRequired, kAll, &SetChecked<&S::mutable_switches, IsSwitchesSpec>},
    {"export", 0, A::kRequired, kSb | kSr, &SetExport},
    {"wrap", 0, A::kRequired, kSb, &SetWrap},
    {"parsable", 0, A::kNone, kSb, &SetCommandFlag<&P::parsable>},
    {"test-only", 0, A::kNone, kSb | kSr, &SetCommandFlag<&P::test_only>},
    // srun's -W is --wait=<seconds>, a different option.
    {"wait", 'W', A::kNone, kSb, &SetCommandFlag<&P::wait>},
    {"wait", 'W', A::kRequired, kSr, &StepOnly},
    {"label", 'l', A::kNone, kSr, &StepOnly},
    {"kill-on-bad-exit", 'K', A::kOptional, kSr, &StepOnly},
    {"unbuffered", 'u', A::kNone, kSr, &StepOnly},
    {"mpi", 0, A::kRequired, kSr, &StepOnly},
    {"overlap", 0, A::kNone, kSr, &StepOnly},
    {"pty", 0, A::kNone, kSr, &StepOnly},
    {"jobid", 0, A::kRequired, kSr, &StepOnly},
    {"no-shell", 0, A::kNone, kSa, &SetCommandFlag<&P::no_shell>},
    {"help", 'h', A::kNone, kAll, &SetCommandFlag<&P::help>},
    {"usage", 0, A::kNone, kAll, &SetCommandFlag<&P::usage>},
    {"version", 'V', A::kNone, kAll, &SetCommandFlag<&P::version>},
    {"quiet", 'Q', A::kNone, kAll, &SetCommandFlag<&P::quiet>},
    {"clusters", 'M', A::kRequired, kAll, &SetClusters},
    {"verbose", 'v', A::kNone, kAll, &CountVerbose},
    {"wckey", 0, A::kRequired, kAll, &SetString<&S::mutable_wckey>},
    {"tasks-per-node", 0, A::kRequired, kAll, &SetCount<&S::set_ntasks_per_node>},
    {"priority", 0, A::kRequired, kAll, &SetPriority},
    {"hint", 0, A::kRequired, kAll, &SetHint},
    {"mem-bind", 0, A::kRequired, kAll, &SetChecked<&S::mutable_mem_bind, IsMemBindSpec>},
    {"distribution", 'm', A::kRequired, kAll, &SetDistribution},
    {"acctg-freq", 0, A::kRequired, kAll, &SetChecked<&S::mutable_acctg_freq, IsAcctgFreqSpec>},
    {"spread-job", 0, A::kNone, kAll, &SetFlag<&S::set_spread_job>},
    {"use-min-nodes", 0, A::kNone, kAll, &SetFlag<&S::set_use_min_nodes>},
    {"threads-per-core", 0, A::kRequired, kAll, &SetCount<&S::set_threads_per_core>},
    {"cores-per-socket", 0, A::kRequired, kAll, &SetCount<&S::set_cores_per_socket>},
    {"extra-node-info", 'B', A::kRequired, kAll, &SetExtraNodeInfo},
    {"ntasks-per-core", 0, A::kRequired, kAll, &SetCount<&S::set_ntasks_per_core>},
    {"mincpus", 0, A::kRequired, kAll, &SetCount<&S::set_min_cpus_per_node>},
    {"tmp", 0, A::kRequired, kAll, &SetTmp},
    {"kill-on-invalid-dep", 0, A::kRequired, kSb | kSa, &SetKillOnInvalidDep},
    {"no-kill", 'k', A::kOptional, kAll, &SetNoKill},
    {"oversubscribe", 's', A::kNone, kAll, &SetFlag<&S::set_oversubscribe>},
    {"reboot", 0, A::kNone, kAll, &SetFlag<&S::set_reboot>},
    {"delay-boot", 0, A::kRequired, kAll, &CheckDelayBoot},
    {"get-user-env", 0, A::kOptional, kSb, &CheckGetUserEnv},
    {"uid", 0, A::kRequired, kAll, &RefuseUidGid},
    {"gid", 0, A::kRequired, kAll, &RefuseUidGid},
    {"bb", 0, A::kRequired, kAll, &RefuseBurstBuffer},
    {"bbf", 0, A::kRequired, kAll, &RefuseBurstBuffer},
    {"propagate", 0, A::kOptional, kSb | kSr, &SetPropagate},
    {"export-file", 0, A::kRequired, kSb, &SetExportFile},
    {"exact", 0, A::kNone, kSr, &StepOnly},
    {"multi-prog", 0, A::kNone, kSr, &StepOnly},
    {"immediate", 'I', A::kOptional, kSr | kSa, &SetImmediate},
    {"nodefile", 'F', A::kRequired, kAll, &SetNodeFile},
    {"ignore-pbs", 0, A::kNone, kSb, &StepOnly},
    {"cpu-freq", 0, A::kRequired, kAll, &CheckOnly<IsNonEmpty>},
    {"network", 0, A::kRequired, kAll, &CheckOnly<IsNonEmpty>},
    {"power", 0, A::kRequired, kAll, &CheckOnly<IsNonEmpty>},
    {"profile", 0, A::kRequired, kAll, &CheckOnly<IsProfileSpec>},
    {"wait-all-nodes", 0, A::kRequired, kSb | kSa, &CheckOnly<IsZeroOrOne>},
    {"core-spec", 'S', A::kRequired, kSb | kSa, &RefuseUnsupported},
    {"core-spec", 0, A::kRequired, kSr, &RefuseUnsupported},
    {"thread-spec", 0, A::kRequired, kAll, &RefuseUnsupported},
    {"mcs-label", 0, A::kRequired, kAll, &RefuseUnsupported},
    // pyxis' options (container_options.h).
    // Slurm's OCI bundles: srun runs them (oci.conf); sbatch and salloc not yet.
    {"container", 0, A::kRequired, kAll, &SetContainer},
    {"container-image", 0, A::kRequired, kAll, &SetContainer},
    {"container-mounts", 0, A::kRequired, kAll, &SetContainer},
    {"container-workdir", 0, A::kRequired, kAll, &SetContainer},
    {"container-name", 0, A::kRequired, kAll, &SetContainer},
    {"container-save", 0, A::kRequired, kAll, &SetContainer},
    {"container-env", 0, A::kRequired, kAll, &SetContainer},
    {"container-writable", 0, A::kNone, kAll, &SetContainer},
    {"container-readonly", 0, A::kNone, kAll, &SetContainer},
    {"container-mount-home", 0, A::kNone, kAll, &SetContainer},
    {"no-container-mount-home", 0, A::kNone, kAll, &SetContainer},
    {"container-remap-root", 0, A::kNone, kAll, &SetContainer},
    {"no-container-remap-root", 0, A::kNone, kAll, &SetContainer},
    {"container-entrypoint", 0, A::kNone, kAll, &SetContainer},
    {"no-container-entrypoint", 0, A::kNone, kAll, &SetContainer},
    {"batch", 0, A::kRequired, kSb, &RefuseUnsupported},
};

// ---- Input environment variables ----

struct EnvBinding {
  std::string_view var;
  std::string_view option;  // Long name in kJobOptions.
};

// Applied in this order; a later variable for the same option wins.
constexpr EnvBinding kSbatchEnv[] = {
    {"SBATCH_ACCOUNT", "account"},
    {"SBATCH_ACCTG_FREQ", "acctg-freq"},
    {"SBATCH_ARRAY_INX", "array"},
    {"SBATCH_CLUSTERS", "clusters"},
    {"SBATCH_CONSTRAINT", "constraint"},
    {"SBATCH_CONTAINER", "container"},
    {"SBATCH_CORE_SPEC", "core-spec"},
    {"SBATCH_CPUS_PER_GPU", "cpus-per-gpu"},
    {"SBATCH_DELAY_BOOT", "delay-boot"},
    {"SBATCH_DISTRIBUTION", "distribution"},
    {"SBATCH_ERROR", "error"},
    {"SBATCH_EXCLUSIVE", "exclusive"},
    {"SBATCH_EXPORT", "export"},
    {"SBATCH_GET_USER_ENV", "get-user-env"},
    {"SBATCH_GPUS", "gpus"},
    {"SBATCH_GPUS_PER_NODE", "gpus-per-node"},
    {"SBATCH_GPUS_PER_TASK", "gpus-per-task"},
    {"SBATCH_GPU_BIND", "gpu-bind"},
    {"SBATCH_GPU_FREQ", "gpu-freq"},
    {"SBATCH_GRES", "gres"},
    {"SBATCH_GRES_FLAGS", "gres-flags"},
    {"SBATCH_HINT", "hint"},
    {"SBATCH_IGNORE_PBS", "ignore-pbs"},
    {"SBATCH_INPUT", "input"},
    {"SBATCH_JOB_NAME", "job-name"},
    {"SBATCH_MAIL_TYPE", "mail-type"},
    {"SBATCH_MAIL_USER", "mail-user"},
    {"SBATCH_MEM_BIND", "mem-bind"},
    {"SBATCH_MEM_PER_CPU", "mem-per-cpu"},
    {"SBATCH_MEM_PER_GPU", "mem-per-gpu"},
    {"SBATCH_MEM_PER_NODE", "mem"},
    {"SBATCH_NETWORK", "network"},
    {"SBATCH_NO_KILL", "no-kill"},
    {"SBATCH_NO_REQUEUE", "no-requeue"},
    {"SBATCH_OPEN_MODE", "open-mode"},
    {"SBATCH_OUTPUT", "output"},
    {"SBATCH_OVERCOMMIT", "overcommit"},
    {"SBATCH_PARTITION", "partition"},
    {"SBATCH_POWER", "power"},
    {"SBATCH_PROFILE", "profile"},
    {"SBATCH_QOS", "qos"},
    {"SBATCH_REQUEUE", "requeue"},
    {"SBATCH_REQ_SWITCH", "switches"},
    {"SBATCH_RESERVATION", "reservation"},
    {"SBATCH_SIGNAL", "signal"},
    {"SBATCH_THREAD_SPEC", "thread-spec"},
    {"SBATCH_TIMELIMIT", "time"},
    {"SBATCH_USE_MIN_NODES", "use-min-nodes"},
    {"SBATCH_WAIT", "wait"},
    {"SBATCH_WAIT_ALL_NODES", "wait-all-nodes"},
    {"SBATCH_WCKEY", "wckey"},
};

constexpr EnvBinding kSrunEnv[] = {
    {"SLURM_ACCOUNT", "account"},
    {"SLURM_ACCTG_FREQ", "acctg-freq"},
    {"SLURM_CLUSTERS", "clusters"},
    {"SLURM_CONSTRAINT", "constraint"},
    {"SLURM_CONTAINER", "container"},
    {"SLURM_CORE_SPEC", "core-spec"},
    {"SLURM_CPUS_PER_GPU", "cpus-per-gpu"},
    {"SLURM_CPU_BIND", "cpu-bind"},
    {"SLURM_DELAY_BOOT", "delay-boot"},
    {"SLURM_DISTRIBUTION", "distribution"},
    {"SLURM_EXACT", "exact"},
    {"SLURM_EXCLUSIVE", "exclusive"},
    {"SLURM_EXPORT_ENV", "export"},
    {"SLURM_GPUS", "gpus"},
    {"SLURM_GPUS_PER_NODE", "gpus-per-node"},
    {"SLURM_GPUS_PER_TASK", "gpus-per-task"},
    {"SLURM_GPU_BIND", "gpu-bind"},
    {"SLURM_GPU_FREQ", "gpu-freq"},
    {"SLURM_GRES", "gres"},
    {"SLURM_GRES_FLAGS", "gres-flags"},
    {"SLURM_HINT", "hint"},
    {"SLURM_IMMEDIATE", "immediate"},
    {"SLURM_JOB_NAME", "job-name"},
    {"SLURM_MAIL_TYPE", "mail-type"},
    {"SLURM_MAIL_USER", "mail-user"},
    {"SLURM_MEM_BIND", "mem-bind"},
    {"SLURM_MEM_PER_CPU", "mem-per-cpu"},
    {"SLURM_MEM_PER_GPU", "mem-per-gpu"},
    {"SLURM_MEM_PER_NODE", "mem"},
    {"SLURM_NETWORK", "network"},
    {"SLURM_NO_KILL", "no-kill"},
    {"SLURM_OPEN_MODE", "open-mode"},
    {"SLURM_OVERCOMMIT", "overcommit"},
    {"SLURM_PARTITION", "partition"},
    {"SLURM_POWER", "power"},
    {"SLURM_PROFILE", "profile"},
    {"SLURM_QOS", "qos"},
    {"SLURM_REQ_SWITCH", "switches"},
    {"SLURM_RESERVATION", "reservation"},
    {"SLURM_SIGNAL", "signal"},
    {"SLURM_THREADS_PER_CORE", "threads-per-core"},
    {"SLURM_THREAD_SPEC", "thread-spec"},
    {"SLURM_TIMELIMIT", "time"},
    {"SLURM_USE_MIN_NODES", "use-min-nodes"},
    {"SLURM_WCKEY", "wckey"},
};

constexpr EnvBinding kSallocEnv[] = {
    {"SALLOC_ACCOUNT", "account"},
    {"SALLOC_ACCTG_FREQ", "acctg-freq"},
    {"SALLOC_CLUSTERS", "clusters"},
    {"SALLOC_CONSTRAINT", "constraint"},
    {"SALLOC_CONTAINER", "container"},
    {"SALLOC_CORE_SPEC", "core-spec"},
    {"SALLOC_CPUS_PER_GPU", "cpus-per-gpu"},
    {"SALLOC_DELAY_BOOT", "delay-boot"},
    {"SALLOC_EXCLUSIVE", "exclusive"},
    {"SALLOC_GPUS", "gpus"},
    {"SALLOC_GPUS_PER_NODE", "gpus-per-node"},
    {"SALLOC_GPUS_PER_TASK", "gpus-per-task"},
    {"SALLOC_GPU_BIND", "gpu-bind"},
    {"SALLOC_GPU_FREQ", "gpu-freq"},
    {"SALLOC_GRES", "gres"},
    {"SALLOC_GRES_FLAGS", "gres-flags"},
    {"SALLOC_HINT", "hint"},
    {"SALLOC_IMMEDIATE", "immediate"},
    {"SALLOC_JOB_NAME", "job-name"},
    {"SALLOC_MAIL_TYPE", "mail-type"},
    {"SALLOC_MAIL_USER", "mail-user"},
    {"SALLOC_MEM_BIND", "mem-bind"},
    {"SALLOC_MEM_PER_CPU", "mem-per-cpu"},
    {"SALLOC_MEM_PER_GPU", "mem-per-gpu"},
    {"SALLOC_MEM_PER_NODE", "mem"},
    {"SALLOC_NETWORK", "network"},
    {"SALLOC_NO_KILL", "no-kill"},
    {"SALLOC_OVERCOMMIT", "overcommit"},
    {"SALLOC_PARTITION", "partition"},
    {"SALLOC_POWER", "power"},
    {"SALLOC_PROFILE", "profile"},
    {"SALLOC_QOS", "qos"},
    {"SALLOC_REQ_SWITCH", "switches"},
    {"SALLOC_RESERVATION", "reservation"},
    {"SALLOC_SIGNAL", "signal"},
    {"SALLOC_THREAD_SPEC", "thread-spec"},
    {"SALLOC_TIMELIMIT", "time"},
    {"SALLOC_USE_MIN_NODES", "use-min-nodes"},
    {"SALLOC_WAIT_ALL_NODES", "wait-all-nodes"},
    {"SALLOC_WCKEY", "wckey"},
};

std::span<const EnvBinding> EnvBindings(Command command) {
  switch (command) {
    case Command::kSbatch:
      return kSbatchEnv;
    case Command::kSrun:
      return kSrunEnv;
    case Command::kSalloc:
      return kSallocEnv;
  }
  return {};
}

// The prefix of the variable pairing with *_REQ_SWITCH ("SBATCH_WAIT4SWITCH").
std::string_view EnvPrefix(Command command) {
  switch (command) {
    case Command::kSbatch:
      return "SBATCH_";
    case Command::kSrun:
      return "SLURM_";
    case Command::kSalloc:
      return "SALLOC_";
  }
  return "SBATCH_";
}

const JobOption* FindOption(Command command, std::string_view name) {
  for (const JobOption& option : kJobOptions) {
    if (option.name == name && (option.commands & CommandBit(command))) return &option;
  }
  return nullptr;
}

Status WithContext(const Status& status, const OptionSink& sink, std::string_view where) {
  return Status(status.code(), status.message() + "\n" + std::string(sink.prog()) + ": error: (" +
                                   std::string(where) + ")");
}

// A flag variable counts as set unless its value says "no" ("0", "no", "false",
// "off"), so SBATCH_WAIT=0 does not turn waiting on.
Status ApplyEnvironment(OptionSink& sink) {
  const Environment& env = sink.context().env;
  for (const EnvBinding& binding : EnvBindings(sink.command())) {
    auto it = env.find(binding.var);
    if (it == env.end()) continue;
    const JobOption* option = FindOption(sink.command(), binding.option);
    if (option == nullptr) continue;  // Bound to an option this command lacks.
    const std::string& value = it->second;
    std::optional<bool> truth = ParseBool(value);
    if (option->arg != ArgKind::kRequired && truth == false) continue;
    if (option->arg == ArgKind::kRequired && value.empty()) continue;
    const bool pass_value = option->arg == ArgKind::kRequired ||
                            (option->arg == ArgKind::kOptional && !value.empty() && !truth);
    sink.NoteGiven(option->name);
    Status status =
        option->apply(sink, *option, pass_value ? std::string_view(value) : "", pass_value);
    if (!status.ok()) {
      return WithContext(
          status, sink,
          "from environment variable " + std::string(binding.var) + "=" + Quoted(value));
    }
  }
  // A maximum wait for the switch count travels in a variable of its own.
  const std::string wait_var = std::string(EnvPrefix(sink.command())) + "WAIT4SWITCH";
  auto wait = env.find(wait_var);
  if (wait != env.end() && !sink.spec().switches().empty() &&
      sink.spec().switches().find('@') == std::string::npos) {
    if (!ParseDuration(wait->second).ok()) {
      return WithContext(sink.Error("Invalid --switches specification"), sink,
                         "from environment variable " + wait_var + "=" + Quoted(wait->second));
    }
    *sink.spec().mutable_switches() += "@" + wait->second;
  }
  return Status::Ok();
}

// ---- getopt_long driver ----

// Long options return kLongBase + index, above any short option letter.
constexpr int kLongBase = 256;

struct GetoptTable {
  std::vector<const JobOption*> entries;  // By long-option index.
  std::vector<option> longopts;           // Terminated by a zero entry.
  std::string optstring;
};

GetoptTable BuildGetoptTable(Command command) {
  GetoptTable table;
  // "+": stop at the first non-option (the script, the command); ":": report
  // a missing argument as ':' so it can be told apart from an unknown option.
  table.optstring = "+:";
  for (const JobOption& entry : kJobOptions) {
    if (!(entry.commands & CommandBit(command))) continue;
    const int has_arg = entry.arg == ArgKind::kNone       ? no_argument
                        : entry.arg == ArgKind::kRequired ? required_argument
                                                          : optional_argument;
    table.longopts.push_back(option{entry.name.data(), has_arg, nullptr,
                                    kLongBase + static_cast<int>(table.entries.size())});
    table.entries.push_back(&entry);
    if (entry.short_name != 0) {
      table.optstring += entry.short_name;
      if (entry.arg == ArgKind::kRequired) table.optstring += ':';
      if (entry.arg == ArgKind::kOptional) table.optstring += "::";
    }
  }
  table.longopts.push_back(option{nullptr, 0, nullptr, 0});
  return table;
}

const JobOption* ShortOption(const GetoptTable& table, int letter) {
  for (const JobOption* entry : table.entries) {
    if (entry->short_name == letter) return entry;
  }
  return nullptr;
}

// Words as glibc's getopt would print them with opterr set, which is what
// Slurm's commands show; we print them ourselves so they can be returned.
Status GetoptError(const OptionSink& sink, const GetoptTable& table, int rc,
                   std::string_view current_arg) {
  const std::string prog(sink.prog());
  std::string line;
  if (optopt >= kLongBase) {
    const std::string name = "--" + std::string(table.entries[optopt - kLongBase]->name);
    line = rc == ':' ? "option '" + name + "' requires an argument"
                     : "option '" + name + "' doesn't allow an argument";
  } else if (optopt != 0) {
    const std::string letter(1, static_cast<char>(optopt));
    line = rc == ':' ? "option requires an argument -- '" + letter + "'"
                     : "invalid option -- '" + letter + "'";
  } else {
    std::string_view typed = current_arg;
    if (typed.starts_with("--")) typed.remove_prefix(2);
    typed = typed.substr(0, typed.find('='));
    std::vector<std::string> candidates;
    for (const JobOption* entry : table.entries) {
      if (entry->name.starts_with(typed))
        candidates.push_back("'--" + std::string(entry->name) + "'");
    }
    line = candidates.size() > 1 ? "option '" + std::string(current_arg) +
                                       "' is ambiguous; possibilities: " + Join(candidates, " ")
                                 : "unrecognized option '" + std::string(current_arg) + "'";
  }
  return InvalidArgument(prog + ": " + line + "\nTry \"" + prog + " --help\" for more information");
}

// Applies one argument vector; what follows the options goes to *positional.
Status RunGetopt(OptionSink& sink, const GetoptTable& table, const std::vector<std::string>& args,
                 std::vector<std::string>* positional) {
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.emplace_back(sink.prog());
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());

  optind = 0;  // glibc: 0 forces a full re-initialisation, not just a rewind.
  opterr = 0;
  for (;;) {
    const int rc =
        getopt_long(argc, argv.data(), table.optstring.c_str(), table.longopts.data(), nullptr);
    if (rc == -1) break;
    if (rc == '?' || rc == ':') {
      // After a bad long option glibc has moved past it.
      const std::string_view current = argv[std::max(1, optind - 1)];
      return GetoptError(sink, table, rc, current);
    }
    const JobOption* entry =
        rc >= kLongBase ? table.entries[rc - kLongBase] : ShortOption(table, rc);
    if (entry == nullptr) return Internal("getopt returned an unknown option");
    const bool has_value = optarg != nullptr;
    sink.NoteGiven(entry->name);
    ROTA_RETURN_IF_ERROR(entry->apply(sink, *entry, has_value ? optarg : "", has_value));
  }
  for (int i = optind; i < argc; ++i) positional->push_back(storage[i]);
  return Status::Ok();
}

// ---- After all sources ----

// --export: ALL (the default) passes the whole environment; NONE or a list of
// names passes only the user's SLURM_* variables plus the names listed;
// NAME=value sets a variable whatever else is passed.
void FillJobEnvironment(const JobOptionsContext& context, wire::JobSpec& spec) {
  const Environment& env = context.env;
  bool all = spec.export_env().empty();
  Environment chosen;
  Environment assigned;
  for (std::string_view item : Split(spec.export_env(), ',')) {
    if (item.empty() || EqualsIgnoreCase(item, "NONE")) continue;
    if (EqualsIgnoreCase(item, "ALL")) {
      all = true;
    } else if (size_t eq = item.find('='); eq != std::string_view::npos) {
      assigned[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    } else if (auto it = env.find(item); it != env.end()) {
      chosen.insert(*it);
    }
  }
  if (all) {
    chosen = env;
  } else {
    for (const auto& [name, value] : env) {
      if (name.starts_with("SLURM_")) chosen.emplace(name, value);
    }
  }
  for (auto& [name, value] : assigned) chosen[name] = std::move(value);
  spec.clear_environment();
  for (const auto& [name, value] : chosen) spec.add_environment(name + "=" + value);
}

// --export-file's entries win over what --export chose.
void AddExportFileEntries(const std::vector<std::string>& entries, wire::JobSpec& spec) {
  for (const std::string& entry : entries) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('=') + 1);
    auto* env = spec.mutable_environment();
    env->erase(std::remove_if(env->begin(), env->end(),
                              [&](const std::string& e) { return e.starts_with(name); }),
               env->end());
    spec.add_environment(entry);
  }
}

// Slurm ignores --hint next to the options it would set itself.
void DropHintAgainstLayoutOptions(OptionSink& sink) {
  wire::JobSpec& spec = sink.spec();
  if (spec.hint().empty()) return;
  const bool binding = !spec.cpu_bind().empty() && !EqualsIgnoreCase(spec.cpu_bind(), "verbose");
  if (spec.ntasks_per_core() == 0 && spec.threads_per_core() == 0 &&
      !sink.GivenIn("extra-node-info") && !binding) {
    return;
  }
  spec.clear_hint();
  sink.out().warnings.push_back(
      std::string(sink.prog()) +
      ": error: Following options are mutually exclusive with --hint: --ntasks-per-core, "
      "--threads-per-core, -B and --cpu-bind (other than --cpu-bind=verbose). Ignoring --hint.");
}

bool RequestsGpusByGres(const wire::JobSpec& spec) {
  Result<std::vector<GresSpec>> gres = ParseGresList(spec.gres());
  if (!gres.ok()) return false;
  return std::any_of(gres->begin(), gres->end(), [](const GresSpec& g) { return g.name == "gpu"; });
}

void WarnAboutDoubleGpuRequest(OptionSink& sink) {
  const wire::JobSpec& spec = sink.spec();
  const bool by_gpus = !spec.gpus().empty() || !spec.gpus_per_node().empty() ||
                       !spec.gpus_per_task().empty() || !spec.gpus_per_socket().empty();
  if (by_gpus && RequestsGpusByGres(spec)) {
    sink.Warn(
        "--gres=gpu and --gpus* options both request GPUs; the two are counted separately "
        "(--gres per node, --gpus per job, task or socket), so the job may be given more GPUs "
        "than intended. Request GPUs one way only.");
  }
}

bool RequestsGpus(const wire::JobSpec& spec) {
  return !spec.gpus().empty() || !spec.gpus_per_node().empty() || !spec.gpus_per_task().empty() ||
         !spec.gpus_per_socket().empty() || RequestsGpusByGres(spec);
}

// A refusal Slurm's controller would give, told before contacting it: the
// reason, then the command's own line for a failed request.
Status SubmitRefusal(const OptionSink& sink, std::string_view why, std::string_view answer) {
  std::string_view failed = "Batch job submission failed: ";
  if (sink.command() == Command::kSrun) failed = "Unable to allocate resources: ";
  if (sink.command() == Command::kSalloc) failed = "Job submit/allocate failed: ";
  const std::string prog(sink.prog());
  return InvalidArgument(prog + ": error: " + std::string(why) + "\n" + prog +
                         ": error: " + std::string(failed) + std::string(answer));
}

// The GPU options' combinations Slurm's commands refuse (or its controller,
// at once), checked once every source is applied.
Status CheckGpuOptions(OptionSink& sink) {
  wire::JobSpec& spec = sink.spec();
  using L = OptionSink::Layer;
  // --cpus-per-task and --cpus-per-gpu: a command line (or script) value
  // wins over the other from the environment; both from the same kind of
  // source is an error.
  if (spec.cpus_per_task() > 0 && spec.cpus_per_gpu() > 0) {
    const bool task_env = sink.GivenIn("cpus-per-task") == L::kEnvironment;
    const bool gpu_env = sink.GivenIn("cpus-per-gpu") == L::kEnvironment;
    if (task_env && !gpu_env) {
      spec.set_cpus_per_task(0);
    } else if (gpu_env && !task_env) {
      spec.set_cpus_per_gpu(0);
    } else {
      return sink.Fatal("--cpus-per-task and --cpus-per-gpu are mutually exclusive");
    }
  }
  if (spec.ntasks_per_gpu() > 0) {
    const char* clash = !spec.gpus_per_task().empty()     ? "--gpus-per-task"
                        : !spec.gpus_per_socket().empty() ? "--gpus-per-socket"
                        : spec.ntasks_per_node() > 0      ? "--ntasks-per-node"
                                                          : nullptr;
    if (clash != nullptr) {
      return sink.Fatal(std::string(clash) +
                        " is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
    }
  }
  if (!spec.gpus_per_socket().empty() && spec.sockets_per_node() == 0) {
    return sink.Error("--gpus-per-socket option requires --sockets-per-node specification");
  }
  if (!spec.gpus_per_task().empty() && spec.num_tasks() == 0 && spec.ntasks_per_node() == 0 &&
      spec.gpus().empty()) {
    return SubmitRefusal(
        sink, "--gpus-per-task used without either --gpus or -n/--ntasks is not allowed.",
        "Invalid generic resource (gres) specification");
  }
  if (spec.mem_per_gpu_mb() > 0 && !RequestsGpus(spec)) {
    return SubmitRefusal(sink,
                         "--mem-per-gpu used without a GPU request (--gpus, --gpus-per-node, "
                         "--gpus-per-task, --gpus-per-socket or --gres=gpu).",
                         "Invalid generic resource (gres) specification");
  }
  return Status::Ok();
}

}  // namespace

std::span<const JobOption> JobOptionTable() { return kJobOptions; }

Result<ParsedJobOptions> ParseJobOptions(Command command, const JobOptionSources& sources,
                                         const JobOptionsContext& context) {
  ParsedJobOptions out;
  out.spec.set_work_dir(context.cwd);
  // sacct's SubmitLine: the command and its arguments, joined by spaces.
  std::string submit_line(CommandName(command));
  for (const std::string& arg : sources.command_line) submit_line += " " + arg;
  out.spec.set_submit_line(std::move(submit_line));
  OptionSink sink(command, context, &out);
  const GetoptTable table = BuildGetoptTable(command);

  // 1. #SBATCH lines. Each is its own argument vector, as in Slurm.
  for (const ScriptDirective& directive : sources.directives) {
    const std::string where = "in the #SBATCH directive on line " + std::to_string(directive.line);
    std::vector<std::string> leftover;
    Status status = RunGetopt(sink, table, directive.args, &leftover);
    if (status.ok() && !leftover.empty()) {
      status = sink.Error("Invalid directive found in batch script: " + leftover.front());
    }
    if (!status.ok()) return WithContext(status, sink, where);
  }
  ROTA_RETURN_IF_ERROR(sink.EndLayer());

  // 2. Input environment variables.
  ROTA_RETURN_IF_ERROR(ApplyEnvironment(sink));
  ROTA_RETURN_IF_ERROR(sink.EndLayer());

  // 3. The command line.
  ROTA_RETURN_IF_ERROR(RunGetopt(sink, table, sources.command_line, &out.positional));
  ROTA_RETURN_IF_ERROR(sink.EndLayer());

  if (!sources.partial) ROTA_RETURN_IF_ERROR(CheckGpuOptions(sink));
  DropHintAgainstLayoutOptions(sink);
  FillJobEnvironment(context, out.spec);
  AddExportFileEntries(out.export_file_entries, out.spec);
  WarnAboutDoubleGpuRequest(sink);
  // sbatch's first positional is the script itself, not one of its arguments.
  const size_t first_arg = command == Command::kSbatch && !out.positional.empty() ? 1 : 0;
  for (size_t i = first_arg; i < out.positional.size(); ++i) out.spec.add_argv(out.positional[i]);
  return out;
}

Status CheckHint(std::string_view value) {
  static constexpr std::array<std::string_view, 4> kHints = {"compute_bound", "memory_bound",
                                                             "multithread", "nomultithread"};
  if (std::none_of(kHints.begin(), kHints.end(),
                   [&](std::string_view hint) { return EqualsIgnoreCase(hint, value); })) {
    return InvalidArgument(
        "unrecognized --hint argument " + Quoted(value) +
        ", valid hints: compute_bound, memory_bound, multithread, nomultithread");
  }
  return Status::Ok();
}

}  // namespace rota::cli
