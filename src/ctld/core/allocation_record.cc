#include "ctld/core/allocation_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "model/index_set.h"

namespace rota::ctld {
namespace {

std::string IdText(const std::vector<uint32_t>& ids) {
  model::IndexSet set;
  for (uint32_t id : ids) set.Insert(id);
  return set.ToString();
}

std::vector<uint32_t> Ids(const std::string& text) {
  std::vector<uint32_t> out;
  model::IndexSet set = model::IndexSet::Parse(text).value_or(model::IndexSet());
  while (std::optional<uint32_t> v = set.PopFirst()) out.push_back(*v);
  return out;
}

}  // namespace

wire::NodeAlloc ToRecord(const sched::ClusterModel& model, const sched::NodeAllocation& a) {
  const sched::NodeShape& node = model.nodes[a.node];
  wire::NodeAlloc r;
  std::vector<uint32_t> cpus = sched::CpuIds(node, a.slots);
  r.set_cpu_ids(IdText(cpus));
  r.set_cpus(static_cast<uint32_t>(cpus.size()));
  r.set_gpu_ids(IdText(a.gpu_indices()));
  r.set_mem_mb(a.mem_mb);
  r.set_tasks(a.tasks);
  r.set_gpu_types(sched::GpuSummary(model, a));
  r.set_exclusive(a.exclusive);
  return r;
}

void RecordAllocation(const sched::ClusterModel& model, const sched::Allocation& allocation,
                      wire::JobRecord& job) {
  job.clear_nodes();
  job.clear_mem_by_node_mb();
  job.clear_allocs();
  uint32_t cpus = 0;
  uint32_t gpus = 0;
  MemoryMb mem = 0;
  std::map<std::string, uint32_t> gpus_by_type;
  for (const sched::NodeAllocation& na : allocation.nodes) {
    const sched::NodeShape& node = model.nodes[na.node];
    job.add_nodes(node.name);
    wire::NodeAlloc& r = *job.add_allocs() = ToRecord(model, na);
    job.add_mem_by_node_mb(na.mem_mb);
    cpus += r.cpus();
    mem += na.mem_mb;
    gpus += na.gpu_count();
    for (uint32_t g : na.gpu_indices()) ++gpus_by_type[model.gpu_types.Name(node.gpus[g].type)];
  }
  const wire::NodeAlloc& first = job.allocs(0);
  job.set_cpus_per_node(first.cpus());
  job.set_gpus_per_node(allocation.nodes.front().gpu_count());
  job.set_gpu_type(gpus_by_type.size() == 1 ? gpus_by_type.begin()->first : "");
  job.set_alloc_cpus(cpus);
  job.set_alloc_gpus(gpus);
  job.set_alloc_mem_mb(mem);
  std::string tres = fmt::format("cpu={},mem={},node={},billing={}", cpus, FormatMemoryMb(mem),
                                 job.nodes_size(), cpus);
  if (gpus > 0) {
    tres += fmt::format(",gres/gpu={}", gpus);
    for (const auto& [type, count] : gpus_by_type) {
      if (!type.empty()) tres += fmt::format(",gres/gpu:{}={}", type, count);
    }
  }
  job.set_alloc_tres(tres);
}

sched::NodeAllocation FromRecord(const sched::ClusterModel& model, uint32_t node,
                                 const wire::NodeAlloc& r) {
  const sched::NodeShape& shape = model.nodes[node];
  sched::NodeAllocation a;
  a.node = node;
  for (uint32_t cpu : Ids(r.cpu_ids())) {
    uint32_t slot = cpu / shape.cpus_per_slot();
    if (slot < shape.slots() && (a.slots.empty() || a.slots.back() != slot))
      a.slots.push_back(slot);
  }
  for (uint32_t g : Ids(r.gpu_ids())) {
    if (g < shape.gpus.size()) a.gpus |= sched::GpuMask{1} << g;
  }
  a.mem_mb = r.mem_mb();
  a.tasks = r.tasks();
  a.exclusive = r.exclusive();
  return a;
}

}  // namespace rota::ctld
