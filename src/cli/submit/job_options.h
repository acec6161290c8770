#pragma once

// The one option table shared by sbatch, srun and salloc, and the parser that
// turns its three sources into a wire::JobSpec.
//
// Sources, lowest precedence first (as Slurm documents for sbatch):
//   1. #SBATCH directives in the batch script (see batch_script.h),
//   2. input environment variables (SBATCH_*, SLURM_* for srun, SALLOC_*),
//   3. the command line.
// A later source overrides an earlier one option by option; within one source
// the last occurrence of an option wins.
//
// Errors come back as a Status whose message holds the exact lines the command
// prints before exiting 1 ("sbatch: error: ..."), so every command reports the
// same problem the same way.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rota.pb.h"

namespace rota::cli {

enum class Command { kSbatch, kSrun, kSalloc };

// "sbatch", "srun", "salloc": the prefix of every message line.
std::string_view CommandName(Command command);

// --hint's value: one of Slurm's hint words (any case), else Slurm's message.
Status CheckHint(std::string_view value);

// NAME -> value. Ordered, so that what is derived from it (the job's
// environment) does not depend on hashing.
using Environment = std::map<std::string, std::string, std::less<>>;

// Builds an Environment from a NULL-terminated `envp` ("NAME=value" strings).
Environment EnvironmentFromEnvp(const char* const* envp);

// A umask as Slurm's commands write it in SLURM_UMASK: "0" and three octal
// digits ("0077").
std::string UmaskText(unsigned mask);
// What sbatch, srun and salloc do first: put the process's umask in
// SLURM_UMASK, unless the user set that variable already, so that the job
// and the files it creates get the submitter's umask.
// NOT thread-safe (setenv).
void ExportUmask();

// One #SBATCH line, already split into arguments as a shell would.
struct ScriptDirective {
  int line = 0;  // 1-based line number in the script, for error messages.
  std::vector<std::string> args;
};

// Everything the parser needs from outside; the parser itself reads no
// environment, clock or working directory.
struct JobOptionsContext {
  Environment env;  // The submitting process's environment.
  std::string cwd;  // Default work_dir; base for a relative --chdir.
  int64_t now = 0;  // Unix seconds; base for --begin=now+1hour and friends.
  // The largest batch script sbatch reads (SchedulerParameters=max_script_size).
  uint64_t max_script_bytes = 4 * 1024 * 1024;
};

// The parser's input. `command_line` is argv without argv[0].
struct JobOptionSources {
  std::vector<std::string> command_line;
  std::vector<ScriptDirective> directives;
  // True for a first look at some of the sources (sbatch's command line
  // before it reads the script): the checks of option combinations, which
  // need every source, are left for the full parse.
  bool partial = false;
};

// The result of parsing: the spec to submit plus what the command itself acts on.
struct ParsedJobOptions {
  wire::JobSpec spec;
  bool parsable = false;   // --parsable: print "jobid[;cluster]" only.
  bool test_only = false;  // --test-only
  bool wait = false;       // -W/--wait: return when the job ends.
  bool no_shell = false;   // salloc --no-shell: exit once the allocation is granted.
  bool wrap_given = false;
  std::string wrap;      // --wrap's command line.
  bool help = false;     // -h/--help
  bool usage = false;    // --usage
  bool version = false;  // -V/--version
  bool quiet = false;    // -Q/--quiet
  // -M/--clusters as given; the command checks it against slurm.conf's
  // ClusterName (cli/cluster_option.h). Empty: not given.
  std::string clusters;
  int verbose = 0;  // How many -v.
  // Arguments after the options: sbatch's script path and its arguments,
  // srun's command and its arguments.
  std::vector<std::string> positional;
  // Complete lines ("sbatch: warning: ...") for the command to print.
  std::vector<std::string> warnings;
  // --propagate's limits (ALL, NONE or names), replacing slurm.conf's
  // PropagateResourceLimits; unset when not given.
  std::optional<std::vector<std::string>> propagate;
  // --export-file's NAME=value entries, already added to spec.environment.
  std::vector<std::string> export_file_entries;
  // salloc's and srun's -I/--immediate: seconds the allocation may take
  // (0 when given bare); unset when not given.
  std::optional<uint32_t> immediate_s;
};

// Parses all three sources for `command`. spec.environment is filled from
// context.env per --export, spec.work_dir defaults to context.cwd, spec.argv
// holds the script arguments (sbatch) or the command (srun, salloc).
// NOT thread-safe: drives glibc getopt_long, which keeps global state.
Result<ParsedJobOptions> ParseJobOptions(Command command, const JobOptionSources& sources,
                                         const JobOptionsContext& context);

// ---- The table (exposed for --help/--usage output and tests) ----

enum class ArgKind { kNone, kRequired, kOptional };

// Which commands accept an option: a bit set of (1 << Command).
using CommandSet = uint8_t;
inline constexpr CommandSet CommandBit(Command c) {
  return static_cast<CommandSet>(1u << static_cast<int>(c));
}

class OptionSink;  // The parse in progress; defined in job_options.cc.

struct JobOption {
  std::string_view name;  // Long name without "--".
  char short_name;        // 0: none.
  ArgKind arg;
  CommandSet commands;
  // Applies one occurrence. `value` is empty for kNone, and for kOptional
  // given without "=value" (then has_value is false).
  Status (*apply)(OptionSink& sink, const JobOption& option, std::string_view value,
                  bool has_value);
};

std::span<const JobOption> JobOptionTable();

}  // namespace rota::cli
