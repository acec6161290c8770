#pragma once

// What the backfill pass (backfill_pass.cc) keeps from one pass to the next:
// when the last one ran, and for bf_continue where a pass cut short by
// bf_max_time left off, so that the next pass resumes below the last job it
// tried instead of trying the same head of the queue again, with the
// reservations it had made for the jobs above, which the next pass books
// again without trying them. A pass that reaches the end of the queue clears
// it. Kept in memory only: after a restart the first pass begins at the top.

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sched/backfill.h"

namespace rota::ctld {

class BackfillState {
 public:
  // Whether a pass is due at `now` with bf_interval `interval`; when not,
  // `next` is when it will be.
  bool Due(int64_t now, int64_t interval, int64_t* next) const;
  void PassBegins(int64_t now) { last_pass_ = now; }

  // bf_continue: marks the jobs the cut passes went through (carried, with
  // the reservation kept for them), unless that is every job.
  void MarkCarried(std::vector<sched::BackfillJob>& jobs) const;
  // Keeps where `plan` (of `jobs`) left off when bf_max_time cut it; clears
  // it when the pass reached the end or bf_continue is off.
  void KeepResume(const sched::BackfillResult& plan, const std::vector<sched::BackfillJob>& jobs,
                  bool bf_continue);

  // The wall clock stepped by `step` seconds: the last pass moves with it,
  // and reservations planned on the old clock are dropped (the next pass
  // starts over from the top).
  void ClockStepped(int64_t step);

  // rota-sim: skip passes that can start nothing (ControllerCore::SetBackfillOnlyToStart).
  bool only_to_start = false;

 private:
  int64_t last_pass_ = 0;  // 0: never
  // The jobs the cut passes went through (down to the last one tried), by
  // id; empty: the next pass begins at the top.
  std::unordered_set<uint32_t> carried_;
  std::unordered_map<uint32_t, sched::KeptReservation> kept_;  // By job id
};

}  // namespace rota::ctld
