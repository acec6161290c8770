#pragma once

// The job steps of running jobs (srun inside an allocation): JOBID.0,
// JOBID.1, ... numbered from 0 per job, laid out within the job's allocation.
// Durable through the controller's state: each change of a job's steps is
// logged as that job's whole JobStepsState (ControllerCore::CreateStep and
// EndStep), so a restarted controller still lists running steps and never
// gives a step id twice. Owned by the state loop thread, like the rest of
// ControllerCore.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "common/status.h"
#include "ctld/core/caller.h"
#include "rota.pb.h"
#include "step_rpc.pb.h"

namespace rota::ctld {

class StepTable {
 public:
  // Creates the next step of `job` (null: unknown). Errors, in Slurm's words:
  // the job is not running, belongs to someone else, or cannot hold the step.
  Result<wire::CreateStepResponse> Create(const wire::CreateStepRequest& request,
                                          const Caller& caller, const wire::JobRecord* job,
                                          int64_t now);
  // The step ended at `now`; it moves to the job's ended steps (kept for
  // accounting until the attempt ends). Unknown steps are not an error
  // (their job ended first).
  Status End(const wire::StepEndedRequest& request, const Caller& caller, int64_t now);
  // Running steps of the jobs `request` names (all when none), by job then step.
  std::vector<wire::JobStepRecord> List(const wire::ListStepsRequest& request) const;
  const wire::JobStepRecord* Find(uint32_t job_id, uint32_t step_id) const;
  // Forgets the steps of jobs for which `running` is false.
  void Prune(const std::function<bool(uint32_t job_id)>& running);
  // Forgets one job's steps (its attempt ended); false when it had none.
  bool Forget(uint32_t job_id);

  // What is logged and restored: one job's steps, or every job's.
  wire::JobStepsState State(uint32_t job_id) const;
  std::vector<wire::JobStepsState> States() const;
  // Replaces the job's steps with `state` (replay of the log or a snapshot).
  void Apply(const wire::JobStepsState& state);

 private:
  struct JobSteps {
    uint32_t next_step_id = 0;
    std::map<uint32_t, wire::JobStepRecord> running;
    std::vector<wire::JobStepRecord> ended;
  };
  std::map<uint32_t, JobSteps> jobs_;
};

}  // namespace rota::ctld
