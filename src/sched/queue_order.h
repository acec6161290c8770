#pragma once

// The order in which both scheduling passes consider pending jobs, as Slurm's:
// partitions of higher PriorityTier first (their jobs are served before any
// job of a lower tier, whatever its priority), then higher priority, then
// earlier submission, then lower job id. The controller sorts its records by
// it (ctld/core/queue_order.h).

#include <cstdint>

namespace rota::sched {

// What of a pending job its place in the queue depends on.
struct QueueKey {
  uint32_t tier = 0;  // Its partition's PriorityTier
  uint32_t priority = 0;
  int64_t submit_time = 0;
  uint32_t job_id = 0;
};

// True when the job of `a` is considered before that of `b`.
inline bool QueuedBefore(const QueueKey& a, const QueueKey& b) {
  if (a.tier != b.tier) return a.tier > b.tier;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
  return a.job_id < b.job_id;
}

}  // namespace rota::sched
