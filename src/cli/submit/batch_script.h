#pragma once

// sbatch's batch script: where it comes from (a file, stdin or --wrap), the
// checks Slurm makes before submitting it, and its #SBATCH directives.
//
// Errors are Status values whose message holds the exact lines sbatch prints
// before exiting 1, as in job_options.h.

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/submit/job_options.h"
#include "common/status.h"

namespace rota::cli {

// The script --wrap=CMD submits.
std::string WrapScript(std::string_view command);

// Reads the whole script from `path`, or from `in` (sbatch's stdin) when
// `path` is empty; never more than `max_bytes` + 1 bytes: a longer script
// fails with the controller's answer for it (max_script_size), so that
// "sbatch /dev/zero" ends at once.
Result<std::string> ReadBatchScript(const std::string& path, std::istream& in,
                                    uint64_t max_bytes = 4 * 1024 * 1024);

// Refuses what Slurm refuses: empty or whitespace-only scripts, a NUL byte,
// DOS line breaks, and a first line that is not "#!interpreter".
Status CheckBatchScript(std::string_view script);

// The directives at the top of `script`: lines are read from the top, blank
// lines and comments skipped, and reading stops at the first other line (the
// first command). A directive line starts with `prefix` at column 0 followed
// by white space; its arguments split at white space, quotes ("..." or '...')
// group words and are removed, and an unquoted word starting with '#' begins a
// trailing comment. Lines with no arguments are left out.
std::vector<ScriptDirective> ExtractDirectives(std::string_view script,
                                               std::string_view prefix = "#SBATCH");

// sbatch's whole option pipeline: parses the command line to find the script
// (a path, --wrap, or stdin when neither), reads and checks it, then parses
// #SBATCH directives, environment and command line in order of precedence.
// Fills spec.script, and spec.name when no option named the job (the
// script's base name, "wrap" for --wrap, "sbatch" for stdin).
// With --help, --usage or --version no script is read.
// NOT thread-safe (see ParseJobOptions).
Result<ParsedJobOptions> ParseSbatchInvocation(const std::vector<std::string>& args,
                                               const JobOptionsContext& context, std::istream& in);

}  // namespace rota::cli
