#pragma once

// The PMI-2 connections of one node's tasks of a step (srun --mpi=pmi2,
// docs/mpi.md): one socketpair per task, the task's end passed to it as
// PMI_FD, this end served by a Pmi2NodeSession. Fences and aborts travel to
// srun as TaskIoFrames on the step's I/O stream; srun's FENCE_DONE comes back
// on it. Owned by the step's thread (step_tasks.cc); not thread-safe.

#include <poll.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "noded/pmi/pmi2_session.h"
#include "noded/pmi/step_pmi.h"
#include "step_rpc.pb.h"

namespace rota::noded {

class Pmi2Tasks : public StepPmi {
 public:
  // Errors: a socketpair could not be made.
  static Result<std::unique_ptr<Pmi2Tasks>> Open(Pmi2StepShape shape);
  ~Pmi2Tasks() override;
  Pmi2Tasks(const Pmi2Tasks&) = delete;
  Pmi2Tasks& operator=(const Pmi2Tasks&) = delete;

  // The task's end (close-on-exec here; the task's process keeps it) and
  // the variables that tell it so (PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID,
  // PMI_SPAWNED), as Slurm's mpi/pmi2 sets them.
  int TaskEnd(uint32_t local_task) const override { return channels_[local_task].task_end; }
  std::vector<std::pair<std::string, std::string>> TaskEnvironment(
      uint32_t local_task) const override;
  // Closes this process's copies of the tasks' ends, once they are started.
  void CloseTaskEnds() override;

  // Adds this side's descriptors to a poll set; returns where they start.
  size_t AddPollFds(std::vector<pollfd>& fds) const override;
  // After poll: serves what the tasks wrote (from fds[first..]) and returns
  // what goes to srun.
  std::vector<wire::TaskIoFrame> OnPolled(const std::vector<pollfd>& fds, size_t first) override;
  // A PMI frame from srun (FENCE_DONE).
  void OnSrunFrame(const wire::PmiExchange& exchange) override;

 private:
  struct Channel {
    int task_end = -1;
    int end = -1;  // This side, non-blocking; -1 once the task closed it
    Pmi2Reader reader;
    std::string outgoing;  // Answers the task has not taken yet
  };
  explicit Pmi2Tasks(Pmi2StepShape shape);
  void Apply(Pmi2NodeSession::Effects effects, std::vector<wire::TaskIoFrame>* to_srun);
  void Flush(Channel& channel);
  void Disconnect(uint32_t local_task, std::vector<wire::TaskIoFrame>* to_srun);

  const Pmi2StepShape shape_;
  Pmi2NodeSession session_;
  std::vector<Channel> channels_;
};

}  // namespace rota::noded
