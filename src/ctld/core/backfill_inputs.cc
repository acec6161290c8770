#include "ctld/core/backfill_inputs.h"

#include "model/pending_reason.h"

namespace rota::ctld {

int64_t PlannedDuration(const wire::JobRecord& j, bool predictions) {
  const int64_t limit = j.time_limit_s();
  const int64_t expected = predictions ? j.spec().expected_run_s() : 0;
  return expected > 0 && (limit < 0 || expected < limit) ? expected : limit;
}

// Jobs the main pass left pending for want of resources (its own or those of
// a job ahead): the only ones backfill may start or plan.
bool WaitsForResources(const wire::JobRecord& j) {
  return j.state() == wire::JOB_STATE_PENDING && j.priority() != 0 &&
         (j.reason() == model::reason::kResources || j.reason() == model::reason::kPriority);
}

// When a holding job's resources are planned to come back. A job that has
// outlived its expected runtime is planned to its limit, as the predictor's
// authors correct an underestimate; a job without a limit, never.
int64_t PlannedEnd(const wire::JobRecord& j, int64_t now, bool predictions) {
  if (j.time_limit_s() < 0 || j.end_time() <= 0) return sched::kForever;
  const int64_t expected = predictions ? j.spec().expected_run_s() : 0;
  if (expected > 0 && j.start_time() > 0) {
    const int64_t predicted = j.start_time() + expected;
    if (predicted > now && predicted < j.end_time()) return predicted;
  }
  return j.end_time();
}

sched::BackfillJob BackfillJobOf(const wire::JobRecord& j, JobShape shape,
                                 const std::vector<uint32_t>* candidates, uint32_t partition_index,
                                 const sched::SchedulingPolicy& policy, int64_t now) {
  sched::BackfillJob b;
  b.id = j.job_id();
  b.request = std::move(shape.request);
  b.request.switches_wait_over =
      shape.switches_wait_s >= 0 && now - j.eligible_time() >= shape.switches_wait_s;
  b.candidates = candidates;
  b.partition = partition_index;
  b.user = j.spec().uid();
  b.time_limit_s = PlannedDuration(j, policy.predict_runtime);
  b.may_reserve = sched::MayReserve(policy, now - j.eligible_time(), j.priority());
  return b;
}

}  // namespace rota::ctld
