#pragma once
// What srun sends, worked out from its options before anything is started:
// the step it asks the controller for, and what every node daemon is told to
// launch. Pure: srun_main.cc adds the parts known only at run time (its I/O
// address and key, the working directory, the terminal's size), then spawns
// and relays.

#include <string>
#include <utility>
#include <vector>

#include "cli/step/srun_options.h"
#include "conf/cluster_config.h"
#include "step_rpc.pb.h"

namespace rota::cli {

// The step srun asks for: its shape, its name (--job-name, else the
// command's base name) and its command. --pty overlaps: the steps started from
// the shell must not wait for it.
wire::CreateStepRequest StepRequestFor(const SrunOptions& options);

// What the node daemons do with one stream; a file shared by all tasks is
// srun's to write, so they stream it. `input`: the stream is stdin.
wire::TaskIoMode WireMode(const StepIoOption& option, bool input);

// The launch of `job_id`.`step_id` on every node: the command, `env` with
// `extra_env` set over it, PMI-2 under --mpi=pmi2 or MpiDefault=pmi2
// (SLURM_MPI_TYPE too), the streams, --pty and the limits PropagateResourceLimits
// carries. `warning`: set when MpiDefault names a type srun does not serve.
wire::LaunchTasksRequest LaunchRequestFor(
    const SrunOptions& options, const conf::ClusterConfig& config, uint32_t job_id,
    uint32_t step_id, std::vector<std::string> env,
    const std::vector<std::pair<std::string, std::string>>& extra_env, std::string* warning);

// The node of the task that reads srun's stdin (-i N, or task 0); "" when no
// node holds that task.
std::string StdinNode(const StepIoOption& input, const wire::JobStepRecord& step);

}  // namespace rota::cli
