#pragma once

// The files a batch job's stdout and stderr go to: sbatch's --output/--error
// patterns with Slurm's replacement symbols, made absolute against the job's
// working directory.

#include <string>
#include <string_view>

#include "rota.pb.h"

namespace rota::noded {

// Expands %j (job id), %J (the same: a batch script's job.step name has no
// step part), %x (job name), %u (user), %N (node), %A (array master job id,
// else the job id), %a (array task id; Slurm's 4294967294 outside arrays),
// %n and %t (0: the batch script is task 0 on the job's node 0), %s (the
// batch step's id, 4294967291, as Slurm's step daemon writes it), %%
// ('%'). A width between '%' and the letter zero-pads numbers (%4j -> 0042).
// Unknown symbols stay as written.
std::string ExpandStdioPattern(std::string_view pattern, const wire::JobLaunch& job,
                               const std::string& node);

struct StdioPaths {
  std::string out;  // Absolute.
  std::string err;  // Absolute; equal to `out` when they share a file.
  bool append = false;
};

// --output (default slurm-%j.out, slurm-%A_%a.out for array tasks), --error
// (default: with stdout), relative ones under spec.work_dir; open_mode
// "append" appends, anything else truncates.
StdioPaths ResolveStdioPaths(const wire::JobLaunch& job, const std::string& node);

}  // namespace rota::noded
