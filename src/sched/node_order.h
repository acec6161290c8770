#pragma once

// The nodes of one usage picture in the selection's order of preference:
// Weight, then the tightest fit (fewest free GPUs, then free CPU slots, then
// free memory), then the node's index — the key Select ranks candidates by.
// Kept up to date node by node as the picture changes, so that a selection
// can walk the nodes from the best one and stop once it has the few it needs
// instead of assessing every node (see SelectInOrder in sched/select.h).
//
// The GPU part of the key counts every free GPU of the node; it is the
// selection's own key only for requests that accept every GPU of the cluster
// (no type, or the one type all GPUs have): AcceptsEveryGpu tells.

#include <cstdint>
#include <map>
#include <vector>

#include "sched/cluster_model.h"

namespace rota::sched {

class NodeOrder {
 public:
  // Orders every node of `model` by `usage` (parallel to model.nodes).
  void Reset(const ClusterModel& model, const std::vector<NodeUsage>& usage);
  // Node `node` now has `usage`.
  void Update(uint32_t node, const NodeUsage& usage);

  // Whether a request for GPUs of `gpu_type` can use every GPU of every node
  // (GpuTypes::kAny, or the type all of them have; true when no node has one).
  bool AcceptsEveryGpu(int gpu_type) const;
  // The most CPUs one slot of any node stands for.
  uint32_t max_cpus_per_slot() const { return max_cpus_per_slot_; }
  size_t size() const { return size_; }

  // Calls `visit(node)` for the nodes with at least `min_gpus` free GPUs and
  // `min_slots` free slots, best first, until it returns false. The others
  // are stepped over a group at a time, not one by one.
  template <typename Visit>
  void Walk(uint32_t min_gpus, uint32_t min_slots, Visit visit) const {
    auto it = groups_.begin();
    while (it != groups_.end()) {
      const Group& g = it->first;
      if (g.gpus < min_gpus) {
        it = groups_.lower_bound(Group{g.weight, min_gpus, 0, 0});
      } else if (g.slots < min_slots) {
        it = groups_.lower_bound(Group{g.weight, g.gpus, min_slots, 0});
      } else {
        for (uint32_t n : it->second) {
          if (!visit(n)) return;
        }
        ++it;
      }
    }
  }

 private:
  // Nodes alike in all but their index, which orders them within the group.
  struct Group {
    uint32_t weight = 0;
    uint32_t gpus = 0;   // Free GPUs
    uint32_t slots = 0;  // Free CPU slots
    MemoryMb mem_mb = 0;
    auto operator<=>(const Group&) const = default;
  };
  Group GroupOf(uint32_t node, const NodeUsage& usage) const;
  void Insert(uint32_t node, const Group& g);

  std::vector<uint32_t> weights_;  // Per node
  std::vector<Group> current_;     // Per node: the group it is in
  // Each group's nodes ascending. A sorted vector, not a tree: a group of
  // alike nodes is walked in one sweep, and moving a node between groups
  // shifts a few contiguous words instead of chasing pointers.
  std::map<Group, std::vector<uint32_t>> groups_;
  size_t size_ = 0;
  uint32_t max_cpus_per_slot_ = 1;
  int only_gpu_type_ = GpuTypes::kAny;  // The type every GPU has; kUnknown: several
};

}  // namespace rota::sched
