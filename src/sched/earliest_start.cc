#include "sched/earliest_start.h"

#include <algorithm>

namespace rota::sched {

std::optional<StartEstimate> EarliestStart(const ClusterModel& model, std::vector<NodeUsage> usage,
                                           const std::vector<uint32_t>& candidates,
                                           const Request& req, int64_t now,
                                           std::vector<Release> releases) {
  std::stable_sort(releases.begin(), releases.end(),
                   [](const Release& a, const Release& b) { return a.time < b.time; });
  int64_t t = now;
  size_t next = 0;
  while (true) {
    // Everything ending by `t` has given its resources back.
    while (next < releases.size() && releases[next].time <= t) {
      for (const NodeAllocation& a : releases[next].allocation.nodes) {
        GiveBack(model, usage[a.node], a);
      }
      ++next;
    }
    Selection s = Select(model, usage, candidates, req);
    if (s.allocation) return StartEstimate{t, std::move(*s.allocation)};
    if (next == releases.size()) return std::nullopt;
    t = std::max(t, releases[next].time);
  }
}

}  // namespace rota::sched
