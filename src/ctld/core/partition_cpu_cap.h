#pragma once

// MaxCPUsPerNode (PartitionName=): how many CPUs of one node the jobs of a
// partition may hold together, so that, say, a CPU partition sharing GPU
// nodes leaves CPUs for the GPU jobs. Counts what the partition's jobs hold
// and checks a selection against it. Pure.

#include <cstdint>
#include <vector>

#include "conf/slurm_conf.h"
#include "rota.pb.h"
#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/select.h"

namespace rota::ctld {

class PartitionCpuCap {
 public:
  // REQUIRES: `model` outlives this object.
  PartitionCpuCap(const conf::PartitionConfig& partition, const sched::ClusterModel& model);

  // Whether the partition sets MaxCPUsPerNode; when not, nothing else matters.
  bool capped() const { return cap_ != conf::kUnlimitedCount; }
  // Counts `job` when it belongs to the partition and holds its allocation
  // (running, suspended, completing).
  void Count(const wire::JobRecord& job);
  // Counts an allocation just made for one of the partition's jobs.
  void Add(const sched::Allocation& allocation);
  // Removes from `usable` the nodes where the partition holds all it may.
  void DropFullNodes(std::vector<uint32_t>& usable) const;
  // The nodes where `allocation` would take the partition past its cap.
  std::vector<uint32_t> Exceeding(const sched::Allocation& allocation) const;

 private:
  uint32_t CpusOf(const sched::NodeAllocation& a) const;

  const conf::PartitionConfig& partition_;
  const sched::ClusterModel& model_;
  uint32_t cap_;
  std::vector<uint32_t> held_;  // By node index; empty when not capped
};

// sched::Select keeping the partition within `cap`: the nodes a selection
// would take past it are left out and the selection is made again (each
// round drops at least one node, so it ends).
sched::Selection SelectWithinCap(const sched::ClusterModel& model,
                                 const std::vector<sched::NodeUsage>& usage,
                                 std::vector<uint32_t> usable, const sched::Request& req,
                                 const PartitionCpuCap& cap);

}  // namespace rota::ctld
