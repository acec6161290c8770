// A step of the wall clock (NTP's step, `date -s`): what is still running
// keeps its duration. The controller's times are wall-clock seconds, so
// without this a step forward would time out every running job and call
// every node silent at once, and a step back would stall time limits, node
// liveness, backfill and fair-share accrual for as long as the step.
//
// A step means the old clock was wrong by `step`, so the times of what is
// still in progress are moved with it: running, suspended and completing
// jobs (start, limit, suspension, grace), pending jobs' submission,
// eligibility and accrual (past events, so that none starts "before" it was
// submitted), nodes' last contact, gang scheduling's turns, and the passes'
// own stamps. What has ended is history already accounted and stays as
// recorded, and so do job steps' times; requested absolute times (--begin,
// --deadline, reservations) mean the true time and stay too.
#include "ctld/core/controller_core.h"
#include "model/job_state.h"

namespace rota::ctld {

void ControllerCore::ClockStepped(int64_t step, int64_t now, Effects& effects) {
  if (step == 0) return;
  auto moved = [step](int64_t t) { return t > 0 ? t + step : t; };
  const int64_t before_step = now - step;  // This moment on the old clock
  for (NodeRuntime& node : nodes_.nodes()) node.last_heard = moved(node.last_heard);
  for (auto& [id, record] : jobs_) {
    const wire::JobState state = record->state();
    if (model::IsFinished(state)) continue;
    wire::JobRecord& job = Mutable(id);
    job.set_submit_time(moved(job.submit_time()));
    job.set_accrue_time(moved(job.accrue_time()));
    if (job.eligible_time() <= before_step) job.set_eligible_time(moved(job.eligible_time()));
    if (state != wire::JOB_STATE_PENDING) {
      job.set_start_time(moved(job.start_time()));
      job.set_end_time(moved(job.end_time()));
      job.set_suspend_time(moved(job.suspend_time()));
      job.set_preempt_time(moved(job.preempt_time()));
      job.set_preempt_kill_time(moved(job.preempt_kill_time()));
    }
    if (state == wire::JOB_STATE_PENDING) {
      *effects.records.emplace_back().mutable_job_upsert() = job;  // No accounting yet
    } else {
      control_.Persist(job, effects);  // A running job's accounted start moves too
    }
  }
  // bf_continue's kept reservations were planned on the old clock: the next
  // backfill pass starts over from the top.
  cycle_.backfill().ClockStepped(step);
  // Gang scheduling: each row keeps the rest of its turn.
  gang_.ClockStepped(moved);
  priorities_.ClockStepped(step);
  control_.ForgetWake();  // The next Tick's sweep finds what is due on the new clock
  jobs_.Touch();
}

}  // namespace rota::ctld
