#pragma once

// srun's command line for a step inside an allocation: the options it acts on
// and the command to run. Slurm's input environment variables (SLURM_NTASKS,
// SLURM_CPUS_PER_TASK, SLURM_GPU_BIND, SLURM_GPUS_PER_TASK, ...; a batch job's
// environment holds them as the job asked: model/job_variables.h) give the
// defaults, the command line wins; a step asking for GPUs on its command line
// (--gres=gpu, -G, --gpus-per-task, --gpus-per-node) takes none of the GPU
// variables' counts. The first argument that is not an option starts the command.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/submit/job_options.h"
#include "common/status.h"
#include "container.pb.h"

namespace rota::cli {

// One of -o/-e/-i: Slurm's special values or a file name pattern.
struct StepIoOption {
  enum Kind {
    kStream,   // Through srun (output of every task; stdin of task `task`)
    kNone,     // /dev/null
    kFile,     // `pattern` (common/step_io_pattern.h)
    kOneTask,  // Output: only task `task` reaches srun
    kAll,      // Input: srun's stdin to every task
  };
  Kind kind = kStream;
  std::string pattern;
  uint32_t task = 0;
};

// "all", "none", a task id or a file name pattern; `input` for -i.
StepIoOption ParseStepIoOption(std::string_view value, bool input);

struct SrunOptions {
  uint32_t num_tasks = 0;  // 0: not given
  // pyxis' options (or salloc's, inherited): the tasks run in a container.
  wire::ContainerSpec container;
  // --multi-prog: `command` is a configuration file of programs per task
  // rank (cli/step/multi_prog.h), until srun replaces it with the command.
  bool multi_prog = false;
  // --propagate's limits, replacing slurm.conf's PropagateResourceLimits.
  std::optional<std::vector<std::string>> propagate;
  uint32_t num_nodes = 0;
  // -w/--nodelist, -x/--exclude as given: the step's nodes among the job's.
  // -m arbitrary sets nodelist to the hosts of SLURM_HOSTFILE.
  std::string nodelist;
  // -m arbitrary: each task's node, from SLURM_HOSTFILE (model::ParseHostfile).
  std::vector<std::string> task_hosts;
  std::string exclude;
  uint32_t ntasks_per_node = 0;
  uint32_t cpus_per_task = 0;
  uint32_t gpus_per_task = 0;
  // What the step holds of the allocation (docs/steps.md); 0: not asked.
  uint64_t mem_per_node_mb = 0;  // --mem
  uint64_t mem_per_cpu_mb = 0;   // --mem-per-cpu
  uint32_t gpus_per_node = 0;    // --gres=gpu[:type]:N or --gpus-per-node
  uint32_t gpus = 0;             // --gpus/-G, for the whole step
  bool overlap = false;          // --overlap: shares resources with other steps
  bool overcommit = false;       // -O: more tasks than CPUs (inside an allocation)
  std::string distribution;      // -m as given, checked (model/task_distribution.h)
  std::string cpu_bind;          // --cpu-bind as given (checked)
  std::string hint;              // --hint (else SLURM_HINT), checked: binds without --cpu-bind
  std::string mem_bind;          // --mem-bind (else SLURM_MEM_BIND), checked
  uint32_t ntasks_per_core = 0;  // --ntasks-per-core (else SLURM_NTASKS_PER_CORE): binding only
  // --mpi (else SLURM_MPI_TYPE): "none", "pmi2" or "list" (cli/step/mpi_type.h);
  // empty: not given, slurm.conf's MpiDefault decides.
  std::string mpi;
  std::string gpu_bind;
  std::string job_name;
  bool label = false;   // -l: prefix every output line with its task id
  StepIoOption output;  // -o
  StepIoOption error;   // -e (default: as -o)
  StepIoOption input{StepIoOption::kStream, "", 0};  // -i (default: task 0)
  bool append = false;                               // --open-mode=append
  bool kill_on_bad_exit = false;                     // -K
  uint32_t wait_seconds = 0;                         // -W (0: for ever)
  // --pty: task 0 on a pseudo-terminal, the other tasks' output to /dev/null
  // (incompatible with -o/-e/-i, as in Slurm).
  bool pty = false;
  bool help = false;
  bool usage = false;
  bool version = false;
  int verbose = 0;
  uint32_t job_id = 0;  // --jobid, else SLURM_JOB_ID; 0: outside an allocation
  std::vector<std::string> command;
  std::vector<std::string> warnings;  // Complete lines for srun to print
};

// srun's exit code from its tasks' wait statuses (task id -> status): the
// highest exit code; when no task exited non-zero, 128 + the highest signal
// that killed one (so with -K the failing task's code wins over the SIGKILL
// of the tasks it took down).
int StepExitCode(const std::map<uint32_t, uint32_t>& wait_statuses);

// What srun prints at ^C: "srun: StepId=J.S tasks 0-2,5: running" and one
// line per exit ("... task 3: exited with exit code 2", "... killed by signal 9").
std::vector<std::string> TaskStatusLines(uint32_t job_id, uint32_t step_id, uint32_t num_tasks,
                                         const std::map<uint32_t, uint32_t>& wait_statuses);

// Slurm's refusal of a step asking for more nodes (-N) than its allocation
// has ("srun: error: Only allocated 2 nodes asked for 3"), judged from the
// allocation's environment (SLURM_JOB_NUM_NODES of job `options.job_id`).
// nullopt when the step fits or the allocation's size is not known here (the
// controller then judges).
std::optional<std::string> StepNodeCountError(const SrunOptions& options, const Environment& env);

// `args`: argv without argv[0]. Errors: complete "srun: error: ..." lines.
// NOT thread-safe (getopt_long).
Result<SrunOptions> ParseSrunOptions(const std::vector<std::string>& args, const Environment& env);

}  // namespace rota::cli
