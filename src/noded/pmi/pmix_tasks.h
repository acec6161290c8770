#pragma once

// The PMIx server of one node's tasks of a step (srun --mpi=pmix,
// docs/mpi.md), seen from the step's thread in rotad: a rota-pmix process
// (pmix_server_main.cc) started for the step, which registers the tasks and
// gives each the variables that lead it there. Its fences travel to srun as
// PMI fences of one key per node (the node's contribution, base64), so srun
// gathers them as it gathers PMI-2's; the gathered set goes back to it.

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "noded/pmi/step_pmi.h"
#include "pmix_helper.pb.h"

namespace rota::noded {

// rota-pmix beside the running program.
std::string PmixServerProgram();

class PmixTasks : public StepPmi {
 public:
  // Starts `program` for this node's tasks of the step and waits until it
  // registered them. Errors: it could not start, said why it cannot serve
  // the step, or did not answer in time.
  static Result<std::unique_ptr<PmixTasks>> Start(const std::string& program,
                                                  const wire::PmixSetup& setup);
  // Closes the server's channel (it stops and removes its directory) and
  // reaps it.
  ~PmixTasks() override;
  PmixTasks(const PmixTasks&) = delete;
  PmixTasks& operator=(const PmixTasks&) = delete;

  int TaskEnd(uint32_t) const override { return -1; }  // Tasks connect by address
  std::vector<std::pair<std::string, std::string>> TaskEnvironment(
      uint32_t local_task) const override;
  void CloseTaskEnds() override {}

  size_t AddPollFds(std::vector<pollfd>& fds) const override;
  std::vector<wire::TaskIoFrame> OnPolled(const std::vector<pollfd>& fds, size_t first) override;
  void OnSrunFrame(const wire::PmiExchange& exchange) override;

 private:
  PmixTasks(pid_t pid, int channel, std::string node, uint32_t first_rank)
      : pid_(pid), channel_(channel), node_(std::move(node)), first_rank_(first_rank) {}
  void Stop();

  pid_t pid_;
  int channel_;  // -1 once the server is gone
  const std::string node_;
  const uint32_t first_rank_;
  std::vector<std::vector<std::pair<std::string, std::string>>> variables_;  // Per local task
};

}  // namespace rota::noded
