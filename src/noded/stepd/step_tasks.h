#pragma once

// The tasks of job steps (srun) on this node. srun asks each node of its step
// to start that node's tasks (LaunchTasksRequest); this checks the request
// against the controller's records of the job and step, starts the tasks as
// the job's user inside the job's cage — each confined to its own GPUs when the
// step binds them — and relays their output and exit statuses to srun over one
// TCP connection per node (TaskIoFrame stream, docs/steps.md). Losing that
// connection (srun died) kills the node's tasks.
//
// The job's cage is rota-stepd's on the job's first node, where the batch
// script runs (tasks there wait for it to start); elsewhere this makes it for
// the step and removes it after the job's last step here ends. Thread-safe;
// one thread per running step.
//
// This class keeps the running steps, their cages and their signals; the
// parts of one launch are units of their own: the plan (step_plan.h), the
// tasks' start (task_spawner.h) and the connection to srun (step_io_relay.h).

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "noded/node_context.h"
#include "rpc/server.h"
#include "step_rpc.pb.h"

namespace rota::noded {

struct LocalTask;
struct StepPlan;

// The job's user as its containers see it (container_store.h).
ContainerUser ContainerUserOf(const wire::JobSpec& spec);

// Whether `spec` asks for a container (an image or a name).
bool WantsContainer(const wire::ContainerSpec& spec);

class StepTasks {
 public:
  // `batch_here(job_id)`: the job's batch script runs on this node and has
  // started (its rota-stepd made the job's cage). REQUIRES: `node` outlives
  // this object.
  StepTasks(const NodeContext& node, std::function<bool(uint32_t job_id)> batch_here);
  ~StepTasks();  // Stop().

  // Starts this node's tasks of a step on a thread of its own and answers
  // `respond` once they all run (or with why they could not start).
  // `caller_uid`/`privileged`: who asked (the credential's uid; root or SlurmUser).
  void Launch(wire::LaunchTasksRequest request, uint32_t caller_uid, bool privileged,
              rpc::Responder respond);
  // Sends `signal` to the tasks of `job_id` (of one step when `step_id` is set).
  // `caller_uid` must own the job unless `privileged`. `ends_job`: the job is
  // being ended (cancel, time limit), so tasks of its steps that start after
  // this are killed at once. Returns how many tasks it reached; "Invalid user
  // id" (slurmstepd's answer) when steps matched but none is the caller's.
  Result<int> Signal(uint32_t job_id, std::optional<uint32_t> step_id, int signal,
                     uint32_t caller_uid, bool privileged, bool ends_job = false);
  // Kills every task and waits for the steps' threads.
  void Stop();

  // A step of a job with tasks here (sstat's kStepStats).
  struct RunningStep {
    uint32_t step_id = 0;
    uint32_t uid = 0;    // Its owner
    uint32_t tasks = 0;  // Its tasks here not yet seen to exit
  };
  // The job's steps whose tasks run here now, by step id.
  std::vector<RunningStep> RunningSteps(uint32_t job_id);

  // The job's cage held apart from its steps (PreparedJobs: PrologFlags=Alloc
  // or Contain), counted as one more holder: made with the job's limits here
  // by the first holder, killed and removed after the last lets go.
  Status HoldJobCage(const wire::JobLaunch& job, const std::vector<uint32_t>& gpu_indices) {
    return HoldCage(job, gpu_indices);
  }
  void ReleaseJobCage(uint32_t job_id) { ReleaseCage(job_id); }
  // A cage made before rotad restarted, held again (not made anew).
  void AdoptJobCage(uint32_t job_id);

 private:
  struct Running;
  class TaskEnds;
  // One step's launch, on its own thread, from the request to its last task's
  // end: it plans (step_plan.h), connects to srun (step_io_relay.h), enters
  // the job's cage, starts the tasks (task_spawner.h), answers `respond` and
  // relays their I/O until they end or srun goes.
  void Run(std::shared_ptr<Running> running, wire::LaunchTasksRequest request, uint32_t caller_uid,
           bool privileged, rpc::Responder respond);
  // The step's plan here from the controller's records of it (ListSteps).
  // Errors: the controller cannot be asked, the step does not run, PlanStep's.
  Result<StepPlan> PlanFromController(const wire::LaunchTasksRequest& request, uint32_t caller_uid,
                                      bool privileged);
  // Makes sure the job's cage exists for the step's tasks: on the job's
  // first node by waiting for its batch step, elsewhere by holding it
  // (`*own_cage` set: ReleaseCage when the step ends). Errors: the batch step
  // did not come up or the job ended first; the cage could not be made.
  Status EnterJobCage(Running& running, const StepPlan& plan, bool* own_cage);
  // Kills and reaps the step's tasks still running, closes rotad's ends of
  // their stdio and removes the cages made for the step (`step_caged`: its
  // own; `own_cage`: the job's, held by it).
  void TearDownStep(Running& running, std::vector<LocalTask>& tasks, bool step_caged,
                    bool own_cage);
  // The step's thread leaves steps_ for finished_, to be joined.
  void Retire(uint32_t job_id, uint32_t step_id);
  // The job's cage for a step when no batch script holds it here: made by the
  // first step, removed after the last. Errors: it could not be made.
  Status HoldCage(const wire::JobLaunch& job, const std::vector<uint32_t>& gpu_indices);
  void ReleaseCage(uint32_t job_id);
  void JoinFinishedLocked();

  const NodeContext& node_;
  const std::function<bool(uint32_t)> batch_here_;

  std::mutex mu_;
  bool stopped_ = false;                                                     // Guarded by mu_.
  std::map<std::pair<uint32_t, uint32_t>, std::shared_ptr<Running>> steps_;  // Guarded by mu_.
  std::vector<std::thread> finished_;   // Threads of ended steps, to join. Guarded by mu_.
  std::map<uint32_t, int> cage_users_;  // Steps in a cage made here, by job. Guarded by mu_.
};

}  // namespace rota::noded
