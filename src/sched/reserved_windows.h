#pragma once

// Advance reservations as the scheduling passes see them: windows of time in
// which some nodes belong to a reservation's jobs only. A job outside a
// reservation may not run on its nodes during its window, so the main pass
// leaves out the nodes of every window its run [now, now + limit) would
// overlap, and the backfill planner finds those nodes taken throughout each
// window (AvailabilityProfile::Block) and plans around it.
//
// Pure: times are arguments.

#include <cstdint>
#include <vector>

#include "sched/availability_profile.h"

namespace rota::sched {

struct ReservedWindow {
  int64_t start = 0;
  int64_t end = 0;              // The window is [start, end)
  std::vector<uint32_t> nodes;  // Node indices, ascending
  bool maint = false;           // A maintenance reservation (Flags=MAINT)
};

// What DropReserved took away.
struct ReservedDrop {
  bool any = false;    // Some candidate was reserved
  bool maint = false;  // ... by a maintenance reservation
};

// Removes from `usable` the nodes of every window overlapping [start, end)
// (end kForever: a run without a time limit). `usable` keeps its order.
ReservedDrop DropReserved(const std::vector<ReservedWindow>& windows, int64_t start, int64_t end,
                          std::vector<uint32_t>& usable);

// Blocks every window's nodes over its window in `profile`.
void BlockReserved(const std::vector<ReservedWindow>& windows, AvailabilityProfile& profile);

}  // namespace rota::sched
