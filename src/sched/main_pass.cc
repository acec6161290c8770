#include "sched/main_pass.h"

#include <algorithm>
#include <vector>

namespace rota::sched {

void RunMainPass(std::span<const MainPassJob> queue, MainPassActions& actions) {
  uint32_t partitions = 0;
  for (const MainPassJob& job : queue) partitions = std::max(partitions, job.partition + 1);
  std::vector<bool> blocked(partitions, false);  // A job of the partition did not fit
  bool any_blocked = false;
  for (const MainPassJob& job : queue) {
    bool gone = false;
    if (model::PendingReason held = actions.Hold(job, &gone); gone || held) {
      if (!gone) actions.Wait(job, held);
      continue;
    }
    if (blocked[job.partition] && !job.holds_nodes) {
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
        if (!job.in_reservation && job.may_reserve && !blocked[job.partition]) {
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
