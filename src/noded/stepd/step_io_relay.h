#pragma once

// This node's end of a step's I/O connection to srun: one TCP connection per
// node carrying TaskIoFrames (docs/steps.md). Over it rotad greets srun with
// the key srun gave its nodes, relays the tasks' stdout and stderr to srun and
// srun's stdin (and, with --pty, its window size) to them, carries the PMI-2
// fence frames both ways, and tells srun each task's exit once its output is
// drained. It reaps the tasks as they exit; what else happens then (the live
// task list, the TaskEpilog, the cage's memory kills) is the step's, asked
// through TaskEndHooks. Used by one step's thread only.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "noded/stepd/local_task.h"
#include "step_rpc.pb.h"

namespace rota::noded {

class StepPmi;

// What the step does as its tasks end, between their exit and srun hearing
// of it. Implemented by the step (step_tasks.cc); tests fake it.
class TaskEndHooks {
 public:
  virtual ~TaskEndHooks() = default;
  // `task` has exited and is about to be reaped: from now on its pid may be
  // anyone's, so no signal may be sent to it.
  virtual void Exiting(const LocalTask& task) = 0;
  // `task` was reaped (wait status and peak memory filled in). srun is told
  // of its exit only after this returns: the TaskEpilog runs here.
  virtual void Reaped(const LocalTask& task) = 0;
  // The kernel's memory kills so far in the step's cage; asked after a task
  // failed. 0 when the step's memory is not confined.
  virtual uint64_t StepOomKills() = 0;
  // The EXIT frame of the last of this node's tasks, before it is sent: the
  // step adds what its GPUs here did.
  virtual void LastExit(wire::TaskIoFrame& /*frame*/) {}
};

class StepIoRelay {
 public:
  // Connects to srun at the request's io_host:io_port (TCP_NODELAY).
  // Errors: srun's host cannot be resolved or reached.
  static Result<std::unique_ptr<StepIoRelay>> Connect(const wire::LaunchTasksRequest& request,
                                                      const std::string& node);
  // Over a connected socket `io`, which it then owns (tests: a socketpair).
  // `node`: this node's name, as srun knows it.
  StepIoRelay(int io, uint32_t job_id, uint32_t step_id, std::string node);
  ~StepIoRelay();  // Closes the connection.
  StepIoRelay(const StepIoRelay&) = delete;
  StepIoRelay& operator=(const StepIoRelay&) = delete;

  // The first frame: proves to srun that this node was sent by it (`io_key`).
  Status Hello(const std::string& io_key);
  // Tells srun this node's tasks could not start, and why (best effort).
  void SendFailure(const std::string& why);
  // Text that rotad itself writes on a task's stderr, such as the binding
  // --cpu-bind=verbose reports (best effort).
  void SendTaskStderr(uint32_t task, const std::string& text);

  // Relays until every task has exited and srun has been told all it wrote
  // and its exit: true. False: srun went away first; the tasks still running
  // are left to the caller to kill. Closes each task's stdio ends as they
  // end. REQUIRES: every task started (pid and its stdio ends set). `pmi`:
  // the step's PMI server, or null.
  bool RelayUntilDone(std::vector<LocalTask>& tasks, StepPmi* pmi, TaskEndHooks& hooks);

 private:
  // Takes one frame from srun: stdin for some tasks, a window size, or the
  // end of a PMI fence. False: srun is gone.
  bool TakeFrameFromSrun(std::vector<LocalTask>& tasks, StepPmi* pmi);
  // Reaps `task` if it has exited and tells srun of memory kills it met;
  // false when srun could not be written to.
  bool ReapIfExited(LocalTask& task, TaskEndHooks& hooks);

  const int io_;
  const uint32_t job_id_;
  const uint32_t step_id_;
  const std::string node_;
  uint64_t oom_kills_told_ = 0;  // The step cage's memory kills srun was told of
};

// Writes what it can of the task's pending stdin; closes it once srun's stdin
// ended and all is written, or when the task stopped reading.
void WritePendingStdin(LocalTask& task);

}  // namespace rota::noded
