// ControllerCore's job steps: starting and ending them through the step
// table, with each change logged so that steps survive a controller restart.
#include "ctld/core/controller_core.h"

namespace rota::ctld {

void ControllerCore::PruneSteps() {
  steps_.Prune([this](uint32_t job_id) {
    const wire::JobRecord* job = FindJob(job_id);
    // A suspended job's steps are stopped, not gone: they resume with it.
    return job != nullptr &&
           (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED);
  });
}

Result<wire::CreateStepResponse> ControllerCore::CreateStep(const wire::CreateStepRequest& request,
                                                            const Caller& caller, int64_t now,
                                                            Effects& effects) {
  PruneSteps();
  Result<wire::CreateStepResponse> out =
      steps_.Create(request, caller, FindJob(request.job_id()), now);
  if (out.ok())
    *effects.records.emplace_back().mutable_job_steps() = steps_.State(request.job_id());
  return out;
}

Status ControllerCore::EndStep(const wire::StepEndedRequest& request, const Caller& caller,
                               Effects& effects) {
  const bool known = steps_.Find(request.job_id(), request.step_id()) != nullptr;
  Status s = steps_.End(request, caller);
  if (s.ok() && known) {
    *effects.records.emplace_back().mutable_job_steps() = steps_.State(request.job_id());
  }
  return s;
}

}  // namespace rota::ctld
