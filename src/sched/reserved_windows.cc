#include "sched/reserved_windows.h"

#include <algorithm>

namespace rota::sched {

ReservedDrop DropReserved(const std::vector<ReservedWindow>& windows, int64_t start, int64_t end,
                          std::vector<uint32_t>& usable) {
  ReservedDrop drop;
  for (const ReservedWindow& w : windows) {
    if (w.start >= end || w.end <= start) continue;
    auto reserved = [&w](uint32_t n) {
      return std::binary_search(w.nodes.begin(), w.nodes.end(), n);
    };
    auto kept = std::remove_if(usable.begin(), usable.end(), reserved);
    if (kept == usable.end()) continue;
    usable.erase(kept, usable.end());
    drop.any = true;
    drop.maint |= w.maint;
  }
  return drop;
}

void BlockReserved(const std::vector<ReservedWindow>& windows, AvailabilityProfile& profile) {
  for (const ReservedWindow& w : windows) {
    for (uint32_t n : w.nodes) profile.Block(w.start, w.end, n);
  }
}

}  // namespace rota::sched
