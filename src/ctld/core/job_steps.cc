// JobControl's job steps: starting and ending them through the step
// table, with each change logged so that steps survive a controller restart.
#include <algorithm>

#include "ctld/core/accounting_records.h"
#include "ctld/core/job_control.h"

namespace rota::ctld {

void JobControl::PruneSteps() {
  steps_.Prune([this](uint32_t job_id) {
    const wire::JobRecord* job = jobs_.Find(job_id);
    // A suspended job's steps are stopped, not gone: they resume with it.
    return job != nullptr &&
           (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED);
  });
}

Result<wire::CreateStepResponse> JobControl::CreateStep(const wire::CreateStepRequest& request,
                                                        const Caller& caller, int64_t now,
                                                        Effects& effects) {
  PruneSteps();
  Result<wire::CreateStepResponse> out =
      steps_.Create(request, caller, jobs_.Find(request.job_id()), now);
  if (out.ok())
    *effects.records.emplace_back().mutable_job_steps() = steps_.State(request.job_id());
  return out;
}

Status JobControl::EndStep(const wire::StepEndedRequest& request, const Caller& caller, int64_t now,
                           Effects& effects) {
  const bool known = steps_.Find(request.job_id(), request.step_id()) != nullptr;
  Status s = steps_.End(request, caller, now);
  if (s.ok() && known) {
    *effects.records.emplace_back().mutable_job_steps() = steps_.State(request.job_id());
    // Accounting hears of the step now (sacct lists it while the job runs).
    const wire::JobRecord* job = jobs_.Find(request.job_id());
    if (job != nullptr && AccountingEnabled(*config_)) {
      effects.accounting.push_back(MakeAccountingJob(*config_, *job, job->state()));
      AttachSteps(*job, effects.accounting.back());
    }
  }
  return s;
}

void JobControl::AttachSteps(const wire::JobRecord& job, wire::AccountingJob& record) const {
  if (record.job_id() != job.job_id()) return;
  const wire::JobStepsState state = steps_.State(job.job_id());
  record.clear_steps();
  for (const wire::JobStepRecord& step : state.ended()) {
    *record.add_steps() = MakeAccountingStep(*config_, step);
  }
  for (const wire::JobStepRecord& step : state.running()) {
    wire::AccountingStep& a = *record.add_steps() = MakeAccountingStep(*config_, step);
    if (record.ended()) {
      // Still running when the attempt ended: ended with it.
      a.set_state(wire::JOB_STATE_CANCELLED);
      a.set_end_time(record.end_time());
    }
  }
  std::sort(record.mutable_steps()->begin(), record.mutable_steps()->end(),
            [](const wire::AccountingStep& a, const wire::AccountingStep& b) {
              return a.step_id() < b.step_id();
            });
}

void JobControl::NoteBatchUsage(const wire::JobExitedRequest& report) {
  if (!report.has_usage() || report.prolog_failed()) return;
  auto it = jobs_.find(report.job_id());
  if (it == jobs_.end()) return;
  const wire::JobRecord& job = *it->second;
  const bool live = job.state() == wire::JOB_STATE_RUNNING ||
                    job.state() == wire::JOB_STATE_COMPLETING ||
                    job.state() == wire::JOB_STATE_SUSPENDED;
  if (!live || job.nodes().empty() || (!report.node().empty() && job.nodes(0) != report.node())) {
    return;  // Not this run's batch step
  }
  // Persisted with the end the same report brings.
  *Mutable(report.job_id()).mutable_batch_usage() = report.usage();
}

void JobControl::EndAttemptSteps(const wire::JobRecord& job, Effects& effects) {
  if (steps_.Forget(job.job_id())) {
    // Logged empty, so that a replay does not hand this attempt's steps to
    // the next one.
    effects.records.emplace_back().mutable_job_steps()->set_job_id(job.job_id());
  }
}

}  // namespace rota::ctld
