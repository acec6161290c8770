#pragma once

// srun's command line for a step inside an allocation: the options it acts on
// and the command to run. Slurm's input environment variables (SLURM_NTASKS,
// SLURM_CPUS_PER_TASK, ...) give the defaults, the command line wins; the
// first argument that is not an option starts the command.

#include <cstdint>
#include <string>
#include <vector>

#include "cli/job_options.h"
#include "common/status.h"

namespace rota::cli {

struct SrunOptions {
  uint32_t num_tasks = 0;  // 0: not given
  uint32_t num_nodes = 0;
  uint32_t ntasks_per_node = 0;
  uint32_t cpus_per_task = 0;
  uint32_t gpus_per_task = 0;
  std::string gpu_bind;
  std::string job_name;
  bool label = false;  // -l: prefix every output line with its task id
  bool help = false;
  bool usage = false;
  bool version = false;
  int verbose = 0;
  uint32_t job_id = 0;  // --jobid, else SLURM_JOB_ID; 0: outside an allocation
  std::vector<std::string> command;
  std::vector<std::string> warnings;  // Complete lines for srun to print
};

// `args`: argv without argv[0]. Errors: complete "srun: error: ..." lines.
// NOT thread-safe (getopt_long).
Result<SrunOptions> ParseSrunOptions(const std::vector<std::string>& args, const Environment& env);

}  // namespace rota::cli
