#include "sched/main_pass.h"

#include <algorithm>
#include <vector>

namespace rota::sched {

namespace {

// Whether a misfit for `reason` holds back the jobs after it: a want of
// resources does (also nodes reserved for maintenance); nodes that are down
// or a request the partition cannot take do not (Slurm blocks a partition
// only when its nodes are busy).
bool HoldsBackOthers(const model::PendingReason& reason) {
  return reason.code() == model::reason::kResources ||
         reason == model::reason::kReservedForMaintenance;
}

}  // namespace

void RunMainPass(std::span<const MainPassJob> queue, MainPassActions& actions,
                 const MainPassLimits& limits) {
  uint32_t partitions = 0;
  uint32_t reservations = 0;
  for (const MainPassJob& job : queue) {
    partitions = std::max(partitions, job.partition + 1);
    if (job.in_reservation) reservations = std::max(reservations, job.reservation + 1);
  }
  // A job of the partition (outside reservations), or of the reservation, did not fit.
  std::vector<bool> blocked(partitions, false);
  std::vector<bool> blocked_reservation(reservations, false);
  bool any_kept_off = false;                          // Some nodes are kept off (KeepOff)
  std::vector<uint32_t> gone_through(partitions, 0);  // partition_job_depth's count
  uint32_t starts = 0;
  for (const MainPassJob& job : queue) {
    if (limits.max_starts > 0 && starts >= limits.max_starts) break;
    if (limits.partition_depth > 0 && gone_through[job.partition]++ >= limits.partition_depth) {
      continue;
    }
    bool gone = false;
    if (model::PendingReason held = actions.Hold(job, &gone); gone || held) {
      if (!gone) actions.Wait(job, held);
      continue;
    }
    const bool behind =
        job.in_reservation ? blocked_reservation[job.reservation] : blocked[job.partition];
    if (behind && !job.holds_nodes) {
      actions.Wait(job, model::reason::kPriority);
      continue;
    }
    for (uint32_t started = 0;; ++started) {
      model::PendingReason reason;
      const NextStart next = actions.Next(job, started, &reason);
      if (next == NextStart::kDone) break;
      if (next == NextStart::kHeld) {
        actions.Wait(job, reason);
        break;
      }
      const bool keep_off = any_kept_off && !job.holds_nodes && !job.in_reservation;
      if (!actions.TryStart(job, keep_off, &reason)) {
        if (reason == model::reason::kResources) actions.NoFit(job);
        actions.Wait(job, reason);
        // Slurm's order: a job that named its nodes keeps them and blocks
        // nothing else; a reservation's blocks its reservation; a job too
        // young or too low to reserve blocks nothing.
        bool holds_back = HoldsBackOthers(reason);
        if (actions.Pinned(job)) {
          holds_back = false;
          if (!job.in_reservation) {
            any_kept_off = true;
            actions.KeepOff(job, /*pinned=*/true);
          }
        }
        if (holds_back && job.in_reservation) {
          blocked_reservation[job.reservation] = true;
        } else if (holds_back && job.may_reserve && !blocked[job.partition]) {
          blocked[job.partition] = true;
          any_kept_off = true;
          actions.KeepOff(job, /*pinned=*/false);
        }
        break;
      }
      ++starts;
      if (!job.array || (limits.max_starts > 0 && starts >= limits.max_starts)) break;
    }
  }
}

}  // namespace rota::sched
