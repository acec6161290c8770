#pragma once

// bf_continue: where a backfill pass cut short by bf_max_time left off, so
// that the next pass resumes below the last job it tried instead of trying
// the same head of the queue again, and the reservations it had made for
// the jobs above, which the next pass books again without trying them. A
// pass that reaches the end of the queue clears it.
// Owned by ControllerCore (state loop thread); kept in memory only: after a
// restart the first pass begins at the top.

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "sched/backfill.h"

namespace rota::ctld {

struct BackfillResume {
  // The jobs the cut passes went through (down to the last one tried), by
  // id; empty: the next pass begins at the top.
  std::unordered_set<uint32_t> carried;
  std::unordered_map<uint32_t, sched::KeptReservation> kept;  // By job id
};

}  // namespace rota::ctld
