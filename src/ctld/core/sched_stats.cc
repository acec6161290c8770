#include "ctld/core/sched_stats.h"

#include <algorithm>

namespace rota::ctld {

void SchedStats::RecordMainCycle(uint64_t cycle_us, uint64_t depth, uint64_t queue_length) {
  ++main_.cycles;
  main_.last_cycle_us = cycle_us;
  main_.max_cycle_us = std::max(main_.max_cycle_us, cycle_us);
  main_.total_cycle_us += cycle_us;
  main_.total_depth += depth;
  main_.last_queue_length = queue_length;
}

void SchedStats::RecordBackfillCycle(int64_t when, uint64_t cycle_us, uint64_t depth,
                                     uint64_t depth_try, uint64_t queue_length,
                                     uint64_t table_size) {
  BackfillPassStats& b = backfill_;
  ++b.cycles;
  b.last_cycle_when = when;
  b.last_cycle_us = cycle_us;
  b.max_cycle_us = std::max(b.max_cycle_us, cycle_us);
  b.total_cycle_us += cycle_us;
  b.last_depth = depth;
  b.last_depth_try = depth_try;
  b.total_depth += depth;
  b.total_depth_try += depth_try;
  b.last_queue_length = queue_length;
  b.total_queue_length += queue_length;
  b.last_table_size = table_size;
  b.total_table_size += table_size;
}

void SchedStats::JobEnded(wire::JobState state) {
  switch (state) {
    case wire::JOB_STATE_COMPLETED:
      ++jobs_completed_;
      break;
    case wire::JOB_STATE_CANCELLED:
      ++jobs_canceled_;
      break;
    case wire::JOB_STATE_FAILED:
    case wire::JOB_STATE_NODE_FAIL:
    case wire::JOB_STATE_TIMEOUT:
    case wire::JOB_STATE_OUT_OF_MEMORY:
    case wire::JOB_STATE_BOOT_FAIL:
    case wire::JOB_STATE_DEADLINE:
      ++jobs_failed_;
      break;
    default:
      break;
  }
}

void SchedStats::Reset(int64_t now) {
  const uint64_t backfilled = backfill_.backfilled_jobs;
  since_ = now;
  jobs_submitted_ = jobs_started_ = jobs_completed_ = jobs_canceled_ = jobs_failed_ = 0;
  main_ = MainPassStats();
  backfill_ = BackfillPassStats();
  backfill_.backfilled_jobs = backfilled;
}

}  // namespace rota::ctld
