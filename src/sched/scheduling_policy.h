#pragma once

// The policy one scheduling cycle runs under, as one value the cycle is
// handed: the main pass always (priority order, the first misfit holds back
// its partition: main_pass.h), then, when `backfill` is set, the backfill
// planner (backfill.h) with the parameters below. The controller takes it
// from slurm.conf (PolicyOf: SchedulerType and SchedulerParameters); the
// simulator swaps in a textbook one (FcfsPolicy, EasyPolicy,
// ConservativePolicy) without touching the configuration.

#include <cstdint>
#include <optional>

#include "conf/cluster_config.h"
#include "sched/backfill.h"
#include "sched/main_pass.h"

namespace rota::sched {

struct SchedulingPolicy {
  bool backfill = false;    // SchedulerType=sched/backfill
  MainPassLimits main;      // sched_max_job_start, partition_job_depth
  BackfillParams plan;      // bf_window, bf_max_job_*, bf_job_part_count_reserve, node choice
  int64_t interval_s = 30;  // bf_interval: 0 plans after every main pass
  std::optional<int64_t> max_time_s;  // bf_max_time; unset: interval_s
  int64_t resolution_s = 60;          // bf_resolution of the availability profile
  // bf_min_age_reserve and bf_min_prio_reserve: a job pending (eligible)
  // for less, or with a lower priority, gets no backfill reservation and, in
  // the main pass, holds back no one when it does not fit (see MayReserve).
  int64_t min_age_reserve_s = 0;
  uint32_t min_prio_reserve = 0;
  bool carry_on = false;  // bf_continue
  // rota_predict_runtime: jobs are planned to end when their users' recent
  // runs predict, never later than their limits (and never killed early).
  bool predict_runtime = false;
};

// Whether a job eligible for `waited_s` with `priority` may have resources
// kept for it: a backfill reservation, and the main pass holding back the
// jobs after it.
inline bool MayReserve(const SchedulingPolicy& policy, int64_t waited_s, uint32_t priority) {
  return waited_s >= policy.min_age_reserve_s && priority >= policy.min_prio_reserve;
}

// The site's policy: SchedulerType and SchedulerParameters of `config`.
SchedulingPolicy PolicyOf(const conf::ClusterConfig& config);

// Textbook policies, to compare with the literature, over `site` (whose
// other choices stay: where reservations go, bf_continue, bf_max_time,
// predictions). FCFS: the main pass only. EASY: one reservation per
// partition (its first blocked job). Conservative: a reservation for every
// waiting job. Both backfills plan at every event (bf_interval=0), to the
// second, over the whole queue (no test limits) and without a horizon.
SchedulingPolicy FcfsPolicy(SchedulingPolicy site);
SchedulingPolicy EasyPolicy(SchedulingPolicy site);
SchedulingPolicy ConservativePolicy(SchedulingPolicy site);

}  // namespace rota::sched
