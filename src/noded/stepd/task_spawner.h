#pragma once

// Starts this node's tasks of one job step as its plan says (step_plan.h):
// each as the job's user, with the step's environment and its own
// (SLURM_PROCID, its GPUs, PMI-2), its stdio on files, on pipes that rotad
// relays (step_io_relay.h) or with --pty on a pseudo-terminal, put in its
// place in the step's cage and bound to its CPUs before it execs. It makes
// the step's cage for them first, and runs slurm.conf's TaskEpilog as each
// task ran. What is started and when is the caller's (step_tasks.cc): it
// keeps the tasks and kills them. Used by one step's thread only.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/step_io_pattern.h"
#include "noded/cage/cgroup_backend.h"
#include "noded/container/container_store.h"
#include "noded/node_context.h"
#include "noded/stepd/local_task.h"
#include "noded/stepd/step_plan.h"
#include "noded/stepd/task_process.h"
#include "step_rpc.pb.h"

namespace rota::noded {

class StepPmi;

class TaskSpawner {
 public:
  // Works out what the step's tasks share (identity, environment, the
  // step's cage) without starting anything. REQUIRES: `node`, `plan` and
  // `request` outlive it; `plan` is for `request`'s step on this node.
  TaskSpawner(const NodeContext& node, const StepPlan& plan,
              const wire::LaunchTasksRequest& request);

  // The step's own cage below the job's: its CPUs and memory here, and its
  // tasks' cages below it. REQUIRES: the job's cage exists here. Errors: it
  // could not be made; what was half made is the caller's to remove
  // (RemoveStep of StepCageName).
  Status MakeStepCage() const;

  // The step's tasks run in `container` (pyxis' options, container_store.h)
  // as `user`. REQUIRES: before Start; `container` open for the step.
  void UseContainer(std::shared_ptr<OpenContainer> container, ContainerUser user);

  // Starts the step's local task `local_id` and fills in `task` (its ids,
  // pid, stdio ends, pidfd, pty master). `pmi`: the step's PMI server, or
  // null. REQUIRES: MakeStepCage succeeded. Errors: why the task could not
  // start; `task` then still holds what is to be closed.
  Status Start(uint32_t local_id, StepPmi* pmi, LocalTask& task);

  // What --cpu-bind=verbose and --gpu-bind=verbose print on a started task's
  // stderr, one line each ending in "\n"; none when neither was asked for.
  std::vector<std::string> BindingReports(const LocalTask& task) const;

  // slurm.conf's TaskEpilog after `task` ended, as its user and in its
  // environment, in the step's cage; waits for it. Nothing when there is
  // none; a failure is only logged. `started` as RunTaskEpilog's.
  void RunTaskEpilogAfter(const LocalTask& task, const std::function<void(pid_t)>& started) const;

 private:
  // srun --container=BUNDLE: the task's bundle written, the runtime's command.
  Result<ContainerCommand> BundleCommand(uint32_t task_id, const TaskProcessSpec& process) const;

  const NodeContext& node_;
  const StepPlan& plan_;
  const wire::LaunchTasksRequest& request_;
  const uint32_t job_id_;
  const uint32_t step_id_;
  const std::string step_cage_;
  const StepCageLimits step_limits_;
  // The host's GRES files, looked up once for all of the step's task cages
  // (only when tasks are confined to their GPUs).
  const std::vector<std::string> host_gres_files_;
  std::string user_;
  std::vector<gid_t> groups_;
  std::string work_dir_;
  std::vector<std::string> argv_;
  std::vector<std::string> base_env_;         // What every task's environment starts from
  size_t step_gpus_here_ = 0;                 // GPUs bound to any of the step's tasks here
  StepIoFields io_fields_;                    // For the %-patterns of -i/-o/-e files
  std::set<std::string> opened_;              // Output files of earlier tasks here: appended to
  std::shared_ptr<OpenContainer> container_;  // Null: the tasks run on the host
  ContainerUser container_user_;
};

// The device files a task's container gets: its GPUs' (`gpus`, node
// indices) and the driver's control files that exist on the host.
std::vector<std::string> ContainerDeviceFiles(const NodeContext& node,
                                              const std::vector<uint32_t>& gpus);

// `gpus` (node indices) as nvidia-container-cli names them: each GPU's UUID
// where discovery found one, else its device file's minor number.
std::vector<std::string> ContainerDriverGpus(const NodeContext& node,
                                             const std::vector<uint32_t>& gpus);

// The environment every task of the step here starts from: srun's, with the
// step's SLURM_* variables and the CPU binding's set.
std::vector<std::string> StepTaskEnvironment(const StepPlan& plan,
                                             const wire::LaunchTasksRequest& request,
                                             const std::string& node_name);

// The numbers CUDA (and the other runtimes) know `task_gpus` by: a task
// confined to its GPUs sees them as 0..n-1; one in the job's cage under
// ConstrainDevices sees the job's, numbered in order; otherwise every GPU is
// visible, by its node index.
std::vector<uint32_t> VisibleGpuNumbers(const StepPlan& plan,
                                        const std::vector<uint32_t>& task_gpus);

// The node's GPUs of `indices` (node indices), for their device files.
std::vector<GpuDevice> GpuDevicesOf(const NodeContext& node, const std::vector<uint32_t>& indices);

// Where one output stream of task `task` goes: "" for srun (a pipe), else a
// file (/dev/null for none).
std::string TaskOutputPath(const wire::TaskIoMode& mode, uint32_t task, const StepIoFields& fields);

}  // namespace rota::noded
