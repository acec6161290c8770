#pragma once

// Where a job's stdout, stderr and stdin go, as `scontrol show job` (StdOut=,
// StdErr=, StdIn=) and squeue's -O StdOut/StdErr/StdIn show them. Slurm
// expands these on the client, with what a job listing knows: the symbols
// %A, %a, %b, %j, %u, %x and %% (with widths, %5j -> 00042); the others (%N,
// %n, %t, %s, %J) are left as written, the node daemon expanding them when the
// job runs. A relative path is shown under the working directory.

#include <string>
#include <string_view>

#include "rota.pb.h"

namespace rota::cli {

// `pattern` expanded for `job` and made absolute.
std::string ExpandJobStdioPattern(std::string_view pattern, const wire::JobRecord& job);

// The given pattern, else for a batch job slurm-%j.out (slurm-%A_%a.out for an
// array task); "" for a job that runs no batch script (salloc, srun).
std::string JobStdoutPath(const wire::JobRecord& job);
// The given pattern, else stdout's.
std::string JobStderrPath(const wire::JobRecord& job);
// The given pattern, else /dev/null for a batch job.
std::string JobStdinPath(const wire::JobRecord& job);

}  // namespace rota::cli
