#pragma once

// The queue ahead of a pending job, planned as the backfill pass plans it
// (the same planner and inputs, backfill_inputs.h) but with a reservation
// for every job ahead, whatever bf_max_job_* and bf_job_part_count_reserve
// would cut, and the queue cut after the job: jobs behind it cannot delay
// it. The question it answers is when the job would start were the plan
// kept: rota why's what-if and the start forecasts rota-sim measures.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "conf/cluster_config.h"
#include "ctld/core/job_table.h"
#include "rota.pb.h"
#include "sched/availability_profile.h"
#include "sched/backfill.h"
#include "sched/scheduling_policy.h"

namespace rota::ctld {

class QueueAheadPlan {
 public:
  // A partition's nodes a job of it may be planned on.
  using UsableNodes = std::function<std::vector<uint32_t>(const conf::PartitionConfig&)>;
  // What is free at `now` and when the holding jobs end (a fresh one each call).
  using FreshProfile = std::function<sched::AvailabilityProfile()>;

  QueueAheadPlan(const conf::ClusterConfig& config, const sched::SchedulingPolicy& policy,
                 const sched::ClusterModel& model, UsableNodes usable, FreshProfile profile,
                 int64_t now);

  // Gathers the jobs ahead of `job` in `sorted` (the backfill queue, in its
  // order) and `job` itself as the planner sees it (own()); false when it has
  // no shape in its partition.
  bool Gather(const std::vector<const wire::JobRecord*>& sorted, const wire::JobRecord& job,
              const JobTable& jobs);
  // The job as gathered. REQUIRES: Gather returned true.
  const sched::BackfillJob& own() const { return own_; }

  // When `variant` of the job would start behind the jobs gathered: now, at
  // its reservation, or nullopt (not within bf_window).
  std::optional<int64_t> StartOf(const sched::BackfillJob& variant) const;

  // Each partition's usable nodes, kept for the plans (they point at them).
  const std::vector<uint32_t>* CandidatesOf(const conf::PartitionConfig& p);
  uint32_t IndexOf(const conf::PartitionConfig& p) const {
    return static_cast<uint32_t>(&p - config_.partitions.data());
  }

 private:
  const conf::ClusterConfig& config_;
  const sched::ClusterModel& model_;
  UsableNodes usable_;
  FreshProfile profile_;
  int64_t now_;
  sched::SchedulingPolicy policy_;  // Its plan reserves for every job ahead
  std::map<const conf::PartitionConfig*, std::unique_ptr<std::vector<uint32_t>>> candidates_;
  std::vector<sched::BackfillJob> ahead_;
  sched::BackfillJob own_;
};

}  // namespace rota::ctld
