#include "sched/main_pass.h"

#include <algorithm>
#include <vector>

namespace rota::sched {

void RunMainPass(std::span<const MainPassJob> queue, MainPassActions& actions) {
  uint32_t partitions = 0;
  uint32_t reservations = 0;
  for (const MainPassJob& job : queue) {
    partitions = std::max(partitions, job.partition + 1);
    if (job.in_reservation) reservations = std::max(reservations, job.reservation + 1);
  }
  // A job of the partition (outside reservations), or of the reservation, did not fit.
  std::vector<bool> blocked(partitions, false);
  std::vector<bool> blocked_reservation(reservations, false);
  bool any_blocked = false;  // Some partition's nodes are kept off
  for (const MainPassJob& job : queue) {
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
      const bool keep_off = any_blocked && !job.holds_nodes && !job.in_reservation;
      if (!actions.TryStart(job, keep_off, &reason)) {
        if (reason == model::reason::kResources) actions.NoFit(job);
        actions.Wait(job, reason);
        if (job.in_reservation) {
          blocked_reservation[job.reservation] = true;
        } else if (job.may_reserve && !blocked[job.partition]) {
          blocked[job.partition] = true;
          any_blocked = true;
          actions.KeepOff(job);
        }
        break;
      }
      if (!job.array) break;
    }
  }
}

}  // namespace rota::sched
