#include "ctld/core/backfill_state.h"

namespace rota::ctld {

bool BackfillState::Due(int64_t now, int64_t interval, int64_t* next) const {
  if (last_pass_ > 0 && now < last_pass_ + interval) {
    *next = last_pass_ + interval;
    return false;
  }
  return true;
}

void BackfillState::MarkCarried(std::vector<sched::BackfillJob>& jobs) const {
  if (carried_.empty()) return;
  size_t carried = 0;
  for (sched::BackfillJob& b : jobs) {
    if (!carried_.contains(b.id)) continue;
    b.carried = true;
    ++carried;
    auto kept = kept_.find(b.id);
    if (kept != kept_.end()) b.kept = &kept->second;
  }
  if (carried == jobs.size()) {  // Nothing else is left: try them all again
    for (sched::BackfillJob& b : jobs) {
      b.carried = false;
      b.kept = nullptr;
    }
  }
}

void BackfillState::KeepResume(const sched::BackfillResult& plan,
                               const std::vector<sched::BackfillJob>& jobs, bool bf_continue) {
  std::unordered_set<uint32_t> carried;
  std::unordered_map<uint32_t, sched::KeptReservation> kept;
  if (bf_continue && plan.out_of_time && plan.last_tested >= 0) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (i > static_cast<size_t>(plan.last_tested) && !jobs[i].carried) continue;
      const sched::BackfillDecision& d = plan.decisions[i];
      carried.insert(d.id);
      if (d.outcome == sched::BackfillOutcome::kReserved) {
        kept.emplace(d.id, sched::KeptReservation{d.start, d.allocation});
      }
    }
  }
  // `jobs` may point into the reservations kept so far (BackfillJob::kept).
  carried_ = std::move(carried);
  kept_ = std::move(kept);
}

void BackfillState::ClockStepped(int64_t step) {
  if (last_pass_ > 0) last_pass_ += step;
  carried_.clear();
  kept_.clear();
}

}  // namespace rota::ctld
