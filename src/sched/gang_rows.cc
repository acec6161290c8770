#include "sched/gang_rows.h"

#include <algorithm>
#include <bit>

#include "conf/preempt_mode.h"

namespace rota::sched::gang {

uint32_t RowsOf(const conf::ClusterConfig& config, const conf::PartitionConfig& partition) {
  if (!conf::GangEnabled(config)) return 0;
  uint32_t n = conf::ForceShareCount(partition.oversubscribe);
  return n > 1 ? n : 0;
}

namespace {

bool NodeOverlap(const sched::NodeAllocation& a, const sched::NodeAllocation& b) {
  if (a.exclusive || b.exclusive) return true;
  if ((a.gpus & b.gpus) != 0) return true;
  // Both ascending.
  auto i = a.slots.begin();
  auto j = b.slots.begin();
  while (i != a.slots.end() && j != b.slots.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

bool Overlap(const sched::Allocation& a, const sched::Allocation& b) {
  for (const sched::NodeAllocation& x : a.nodes) {
    for (const sched::NodeAllocation& y : b.nodes) {
      if (x.node == y.node && NodeOverlap(x, y)) return true;
    }
  }
  return false;
}

std::vector<uint32_t> RunningSet(const std::vector<Member>& members, uint32_t row, uint32_t rows,
                                 const std::vector<uint32_t>& keep) {
  std::vector<const Member*> order;
  order.reserve(members.size());
  for (const Member& m : members) order.push_back(&m);
  auto kept = [&](const Member* m) {
    return std::binary_search(keep.begin(), keep.end(), m->job_id);
  };
  // Those kept first, then the slice's row, then the rows after it; job ids
  // within a row.
  auto distance = [&](const Member* m) {
    if (kept(m)) return 0u;
    return 1u + (rows == 0 ? 0u : (m->row + rows - row) % rows);
  };
  std::sort(order.begin(), order.end(), [&](const Member* a, const Member* b) {
    uint32_t da = distance(a);
    uint32_t db = distance(b);
    return da != db ? da < db : a->job_id < b->job_id;
  });
  std::vector<const Member*> chosen;
  for (const Member* m : order) {
    bool clash = std::any_of(chosen.begin(), chosen.end(), [&](const Member* c) {
      return Overlap(c->allocation, m->allocation);
    });
    if (!clash) chosen.push_back(m);
  }
  std::vector<uint32_t> ids;
  ids.reserve(chosen.size());
  for (const Member* m : chosen) ids.push_back(m->job_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

uint32_t NextRow(const std::vector<Member>& members, uint32_t row, uint32_t rows) {
  for (uint32_t step = 1; step <= rows; ++step) {
    uint32_t candidate = (row + step) % rows;
    if (std::any_of(members.begin(), members.end(),
                    [&](const Member& m) { return m.row == candidate; })) {
      return candidate;
    }
  }
  return row;
}

}  // namespace rota::sched::gang
