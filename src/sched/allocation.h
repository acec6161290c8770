#pragma once

// A placement: on each chosen node, the exact CPU slots, GPU indices and
// memory, and how many of the job's tasks run there. Taking and giving back
// allocations is all that ever changes a NodeUsage.

#include <cstdint>
#include <string>
#include <vector>

#include "common/memory_size.h"
#include "sched/cluster_model.h"

namespace rota::sched {

struct NodeAllocation {
  uint32_t node = 0;
  std::vector<uint32_t> slots;  // Ascending slot ids (cores, or threads under CR_CPU)
  GpuMask gpus = 0;             // Bit i: GPU index i
  MemoryMb mem_mb = 0;
  uint32_t tasks = 0;
  bool exclusive = false;

  uint32_t gpu_count() const;
  std::vector<uint32_t> gpu_indices() const;
  bool operator==(const NodeAllocation&) const = default;
};

struct Allocation {
  std::vector<NodeAllocation> nodes;  // In choice order
};

// The CPU ids a slot list stands for on `node` (cores expand to their threads,
// numbered core * threads_per_core + thread).
std::vector<uint32_t> CpuIds(const NodeShape& node, const std::vector<uint32_t>& slots);
// The GPU type names of the allocated GPUs, "a100:2,v100:1" style counts.
std::string GpuSummary(const ClusterModel& model, const NodeAllocation& a);

// True, and `usage` updated, when everything `a` names is free; otherwise
// false and `usage` untouched.
bool Take(const ClusterModel& model, NodeUsage& usage, const NodeAllocation& a);
// Returns what Take took. False (and nothing changed) when `a` names
// something that is not allocated.
bool GiveBack(const ClusterModel& model, NodeUsage& usage, const NodeAllocation& a);

}  // namespace rota::sched
