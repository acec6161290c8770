#include "ctld/core/queue_ahead_plan.h"

#include "ctld/core/backfill_inputs.h"
#include "ctld/core/job_shape.h"

namespace rota::ctld {

QueueAheadPlan::QueueAheadPlan(const conf::ClusterConfig& config,
                               const sched::SchedulingPolicy& policy,
                               const sched::ClusterModel& model, UsableNodes usable,
                               FreshProfile profile, int64_t now)
    : config_(config),
      model_(model),
      usable_(std::move(usable)),
      profile_(std::move(profile)),
      now_(now),
      policy_(policy) {
  policy_.plan.max_job_test = 0;
  policy_.plan.max_job_part = 0;
  policy_.plan.max_job_user = 0;
  policy_.plan.reserve_per_part = 0;
}

bool QueueAheadPlan::Gather(const std::vector<const wire::JobRecord*>& sorted,
                            const wire::JobRecord& job, const JobTable& jobs) {
  for (const wire::JobRecord* other : sorted) {
    if (other == &job) break;
    const conf::PartitionConfig* p = config_.FindPartition(other->spec().partition());
    if (p == nullptr) continue;
    Result<JobShape> shape = jobs.ShapeOf(*other, *p, config_, model_);
    if (!shape.ok() || !shape->partition_reason.empty()) continue;
    ahead_.push_back(
        BackfillJobOf(*other, std::move(*shape), CandidatesOf(*p), IndexOf(*p), policy_, now_));
  }
  const conf::PartitionConfig* partition = config_.FindPartition(job.spec().partition());
  if (partition == nullptr) return false;
  Result<JobShape> shape = jobs.ShapeOf(job, *partition, config_, model_);
  if (!shape.ok()) return false;
  own_ = BackfillJobOf(job, std::move(*shape), CandidatesOf(*partition), IndexOf(*partition),
                       policy_, now_);
  own_.may_reserve = true;
  return true;
}

std::optional<int64_t> QueueAheadPlan::StartOf(const sched::BackfillJob& variant) const {
  // A fresh profile per plan: the planner books into it (and it is not copyable).
  sched::AvailabilityProfile profile = profile_();
  std::vector<sched::BackfillJob> jobs = ahead_;
  jobs.push_back(variant);
  sched::BackfillResult plan = sched::PlanBackfill(model_, profile, jobs, policy_.plan);
  for (const sched::BackfillDecision& d : plan.decisions) {
    if (d.id != variant.id) continue;
    if (d.outcome == sched::BackfillOutcome::kStartNow) return now_;
    if (d.outcome == sched::BackfillOutcome::kReserved) return d.start;
  }
  return std::nullopt;
}

const std::vector<uint32_t>* QueueAheadPlan::CandidatesOf(const conf::PartitionConfig& p) {
  auto [it, fresh] = candidates_.try_emplace(&p);
  if (fresh) it->second = std::make_unique<std::vector<uint32_t>>(usable_(p));
  return it->second.get();
}

}  // namespace rota::ctld
