#pragma once

// The PMI server of one node's tasks of a step (docs/mpi.md), as the step's
// thread drives it: srun --mpi=pmi2 (Pmi2Tasks, served in this thread) or
// --mpi=pmix (PmixTasks, a rota-pmix process per step and node). The step's
// I/O relay polls its descriptors and carries fences and aborts to and from
// srun. Owned by the step's thread; not thread-safe.

#include <poll.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "step_rpc.pb.h"

namespace rota::noded {

class StepPmi {
 public:
  virtual ~StepPmi() = default;

  // A descriptor the task keeps under its own number, or -1.
  virtual int TaskEnd(uint32_t local_task) const = 0;
  // The variables that lead a task to its server.
  virtual std::vector<std::pair<std::string, std::string>> TaskEnvironment(
      uint32_t local_task) const = 0;
  // Closes this process's copies of the tasks' ends, once they are started.
  virtual void CloseTaskEnds() = 0;

  // Adds this side's descriptors to a poll set; returns where they start.
  virtual size_t AddPollFds(std::vector<pollfd>& fds) const = 0;
  // After poll: serves what arrived (from fds[first..]) and returns what
  // goes to srun.
  virtual std::vector<wire::TaskIoFrame> OnPolled(const std::vector<pollfd>& fds, size_t first) = 0;
  // A PMI frame from srun (FENCE_DONE).
  virtual void OnSrunFrame(const wire::PmiExchange& exchange) = 0;
};

}  // namespace rota::noded
