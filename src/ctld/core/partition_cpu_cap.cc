#include "ctld/core/partition_cpu_cap.h"

#include <algorithm>

namespace rota::ctld {

PartitionCpuCap::PartitionCpuCap(const conf::PartitionConfig& partition,
                                 const sched::ClusterModel& model)
    : partition_(partition), model_(model), cap_(partition.max_cpus_per_node) {
  if (capped()) held_.assign(model.nodes.size(), 0);
}

void PartitionCpuCap::Count(const wire::JobRecord& job) {
  if (!capped() || job.spec().partition() != partition_.name) return;
  const wire::JobState s = job.state();
  if (s != wire::JOB_STATE_RUNNING && s != wire::JOB_STATE_SUSPENDED &&
      s != wire::JOB_STATE_COMPLETING) {
    return;
  }
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    const int32_t node = model_.IndexOf(job.nodes(i));
    if (node >= 0) held_[node] += job.allocs(i).cpus();
  }
}

uint32_t PartitionCpuCap::CpusOf(const sched::NodeAllocation& a) const {
  return static_cast<uint32_t>(a.slots.size()) * model_.nodes[a.node].cpus_per_slot();
}

void PartitionCpuCap::Add(const sched::Allocation& allocation) {
  if (!capped()) return;
  for (const sched::NodeAllocation& a : allocation.nodes) held_[a.node] += CpusOf(a);
}

void PartitionCpuCap::DropFullNodes(std::vector<uint32_t>& usable) const {
  if (!capped()) return;
  std::erase_if(usable, [&](uint32_t n) { return held_[n] >= cap_; });
}

std::vector<uint32_t> PartitionCpuCap::Exceeding(const sched::Allocation& allocation) const {
  std::vector<uint32_t> out;
  if (!capped()) return out;
  for (const sched::NodeAllocation& a : allocation.nodes) {
    if (held_[a.node] + CpusOf(a) > cap_) out.push_back(a.node);
  }
  return out;
}

sched::Selection SelectWithinCap(const sched::ClusterModel& model,
                                 const std::vector<sched::NodeUsage>& usage,
                                 std::vector<uint32_t> usable, const sched::Request& req,
                                 const PartitionCpuCap& cap) {
  cap.DropFullNodes(usable);
  while (true) {
    sched::Selection selection = sched::Select(model, usage, usable, req);
    if (!selection.allocation) return selection;
    std::vector<uint32_t> over = cap.Exceeding(*selection.allocation);
    if (over.empty()) return selection;
    std::erase_if(usable,
                  [&](uint32_t n) { return std::find(over.begin(), over.end(), n) != over.end(); });
  }
}

}  // namespace rota::ctld
