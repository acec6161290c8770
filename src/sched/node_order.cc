#include "sched/node_order.h"

#include <algorithm>
#include <bit>

namespace rota::sched {

NodeOrder::Group NodeOrder::GroupOf(uint32_t node, const NodeUsage& usage) const {
  return Group{weights_[node], static_cast<uint32_t>(std::popcount(usage.free_gpus)),
               usage.free_count, usage.free_mem_mb};
}

void NodeOrder::Insert(uint32_t node, const Group& g) {
  std::vector<uint32_t>& members = groups_[g];
  members.insert(std::lower_bound(members.begin(), members.end(), node), node);
}

void NodeOrder::Reset(const ClusterModel& model, const std::vector<NodeUsage>& usage) {
  groups_.clear();
  weights_.clear();
  current_.clear();
  max_cpus_per_slot_ = 1;
  only_gpu_type_ = GpuTypes::kAny;
  bool seen_gpu = false;
  for (const NodeShape& n : model.nodes) {
    weights_.push_back(n.weight);
    max_cpus_per_slot_ = std::max(max_cpus_per_slot_, n.cpus_per_slot());
    for (const GpuSlot& g : n.gpus) {
      if (!seen_gpu) {
        only_gpu_type_ = g.type;
        seen_gpu = true;
      } else if (g.type != only_gpu_type_) {
        only_gpu_type_ = GpuTypes::kUnknown;
      }
    }
  }
  current_.reserve(usage.size());
  for (uint32_t n = 0; n < usage.size(); ++n) {
    current_.push_back(GroupOf(n, usage[n]));
    groups_[current_.back()].push_back(n);  // Ascending: n grows
  }
  size_ = usage.size();
}

void NodeOrder::Update(uint32_t node, const NodeUsage& usage) {
  Group g = GroupOf(node, usage);
  Group& old = current_[node];
  if (g == old) return;
  auto it = groups_.find(old);
  std::vector<uint32_t>& members = it->second;
  members.erase(std::lower_bound(members.begin(), members.end(), node));
  if (members.empty()) groups_.erase(it);
  Insert(node, g);
  old = g;
}

bool NodeOrder::AcceptsEveryGpu(int gpu_type) const {
  if (gpu_type == GpuTypes::kAny) return true;
  if (gpu_type == GpuTypes::kUnknown) return false;
  return only_gpu_type_ == GpuTypes::kAny || only_gpu_type_ == gpu_type;
}

}  // namespace rota::sched
