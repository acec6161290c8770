#include "sched/allocation.h"

#include <bit>
#include <map>

#include "common/strings.h"

namespace rota::sched {

uint32_t NodeAllocation::gpu_count() const { return static_cast<uint32_t>(std::popcount(gpus)); }

std::vector<uint32_t> NodeAllocation::gpu_indices() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < kMaxGpusPerNode; ++i) {
    if ((gpus >> i) & 1u) out.push_back(i);
  }
  return out;
}

std::vector<uint32_t> CpuIds(const NodeShape& node, const std::vector<uint32_t>& slots) {
  std::vector<uint32_t> cpus;
  uint32_t per = node.cpus_per_slot();
  for (uint32_t s : slots) {
    for (uint32_t t = 0; t < per; ++t) cpus.push_back(s * per + t);
  }
  return cpus;
}

std::string GpuSummary(const ClusterModel& model, const NodeAllocation& a) {
  std::map<std::string, uint32_t> by_type;
  const NodeShape& n = model.nodes[a.node];
  for (uint32_t i : a.gpu_indices()) ++by_type[model.gpu_types.Name(n.gpus[i].type)];
  std::vector<std::string> parts;
  for (const auto& [type, count] : by_type) {
    parts.push_back(type.empty() ? std::to_string(count) : type + ":" + std::to_string(count));
  }
  return Join(parts, ",");
}

bool Take(const ClusterModel& model, NodeUsage& usage, const NodeAllocation& a) {
  const NodeShape& n = model.nodes[a.node];
  if (usage.held_exclusively || (a.exclusive && !usage.idle())) return false;
  if ((usage.free_gpus & a.gpus) != a.gpus || usage.free_mem_mb < a.mem_mb) return false;
  for (uint32_t s : a.slots) {
    if (s >= n.slots() || !usage.free_slots.Test(s)) return false;
  }
  for (uint32_t s : a.slots) {
    usage.free_slots.Clear(s);
    --usage.free_per_socket[n.SocketOf(s)];
  }
  usage.free_count -= static_cast<uint32_t>(a.slots.size());
  usage.free_gpus &= ~a.gpus;
  usage.free_mem_mb -= a.mem_mb;
  ++usage.allocations;
  usage.held_exclusively = a.exclusive;
  return true;
}

bool GiveBack(const ClusterModel& model, NodeUsage& usage, const NodeAllocation& a) {
  const NodeShape& n = model.nodes[a.node];
  if (usage.allocations == 0 || (usage.free_gpus & a.gpus) != 0 ||
      usage.free_mem_mb + a.mem_mb > n.memory_mb) {
    return false;
  }
  for (uint32_t s : a.slots) {
    if (s >= n.slots() || usage.free_slots.Test(s)) return false;
  }
  for (uint32_t s : a.slots) {
    usage.free_slots.Set(s);
    ++usage.free_per_socket[n.SocketOf(s)];
  }
  usage.free_count += static_cast<uint32_t>(a.slots.size());
  usage.free_gpus |= a.gpus;
  usage.free_mem_mb += a.mem_mb;
  --usage.allocations;
  if (a.exclusive) usage.held_exclusively = false;
  return true;
}

}  // namespace rota::sched
