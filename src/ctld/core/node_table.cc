#include "ctld/core/node_table.h"

#include <algorithm>

#include "common/strings.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/job_shape.h"

namespace rota::ctld {

std::string NodeRuntime::StateName() const {
  // scontrol's form: a base state, "+DRAIN" when drained or draining, and "*"
  // when the node daemon does not answer.
  std::string base;
  if (admin_down || down_not_responding) {
    base = "DOWN";
  } else if (!responding && boot_time == 0) {
    base = "UNKNOWN";
  } else if (!responding) {
    base = "DOWN";
  } else if (running_jobs <= completing_jobs) {
    // Only ending jobs left: Slurm shows such a node IDLE+COMPLETING.
    base = "IDLE";
  } else {
    base = alloc_cpus >= config->cpus ? "ALLOCATED" : "MIXED";
  }
  if (completing_jobs > 0) base += "+COMPLETING";
  if (drain) base += "+DRAIN";
  if (!responding) base += "*";
  return base;
}

uint32_t NodeRuntime::AllocGpus() const {
  uint32_t n = 0;
  for (const auto& [type, count] : alloc_gpus) n += count;
  return n;
}

NodeTable::NodeTable(const conf::ClusterConfig& config)
    : model_(sched::BuildClusterModel(config)), usage_(model_.empty_usage) {
  for (const conf::NodeConfig& n : config.nodes) {
    index_[n.name] = nodes_.size();
    NodeRuntime rt;
    rt.config = &n;
    std::string state = ToUpper(n.state);
    rt.admin_down = StartsWithIgnoreCase(state, "DOWN");
    rt.drain = StartsWithIgnoreCase(state, "DRAIN");
    rt.reason = n.reason;
    nodes_.push_back(rt);
  }
}

NodeRuntime* NodeTable::Find(const std::string& name) {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

const NodeRuntime* NodeTable::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

std::vector<wire::NodeAlloc> NodeTable::LegacyAllocs(const wire::JobRecord& job) const {
  std::vector<wire::NodeAlloc> out;
  for (int i = 0; i < job.nodes_size(); ++i) {
    int32_t node = model_.IndexOf(job.nodes(i));
    if (node < 0) return {};
    const sched::NodeShape& shape = model_.nodes[static_cast<size_t>(node)];
    const sched::NodeUsage& u = usage_[static_cast<size_t>(node)];
    sched::NodeAllocation a;
    a.node = static_cast<uint32_t>(node);
    uint32_t slots = (job.cpus_per_node() + shape.cpus_per_slot() - 1) / shape.cpus_per_slot();
    for (uint32_t s = 0; s < shape.slots() && a.slots.size() < slots; ++s) {
      if (u.free_slots.Test(s)) a.slots.push_back(s);
    }
    int type = model_.gpu_types.Find(job.gpu_type());
    uint32_t gpus = job.gpus_per_node();
    for (uint32_t g = 0; g < shape.gpus.size() && gpus > 0; ++g) {
      if (((u.free_gpus >> g) & 1u) &&
          (type == sched::GpuTypes::kAny || shape.gpus[g].type == type)) {
        a.gpus |= sched::GpuMask{1} << g;
        --gpus;
      }
    }
    a.mem_mb = i < job.mem_by_node_mb_size() ? job.mem_by_node_mb(i) : 0;
    a.tasks = 1;
    out.push_back(ctld::ToRecord(model_, a));
  }
  return out;
}

void NodeTable::Count(NodeRuntime& n, const sched::NodeAllocation& a, int sign, bool share) {
  const sched::NodeShape& shape = model_.nodes[a.node];
  auto add = [sign](auto& field, uint64_t amount) {
    using T = std::remove_reference_t<decltype(field)>;
    field = sign > 0 ? field + static_cast<T>(amount)
                     : field - static_cast<T>(std::min<uint64_t>(field, amount));
  };
  add(n.alloc_cpus, a.slots.size() * shape.cpus_per_slot());
  add(n.alloc_mem_mb, a.mem_mb);
  for (uint32_t g : a.gpu_indices())
    add(n.alloc_gpus[model_.gpu_types.Name(shape.gpus[g].type)], 1);
  add(n.running_jobs, 1);
  if (share) add(n.gpu_share_jobs, 1);
}

void NodeTable::Allocate(const wire::JobRecord& job) {
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    int32_t node = model_.IndexOf(job.nodes(i));
    if (node < 0) continue;  // A node removed by reconfiguration.
    sched::NodeAllocation a = FromRecord(model_, static_cast<uint32_t>(node), job.allocs(i));
    // A clash (the configuration changed under running jobs) still counts the
    // job on the node.
    sched::NodeUsage& u = usage_[static_cast<size_t>(node)];
    if (!sched::Take(model_, u, a)) ++u.allocations;
    Count(nodes_[static_cast<size_t>(node)], a, +1, i > 0 && a.gpus != 0);
  }
}

void NodeTable::Release(const wire::JobRecord& job) {
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    int32_t node = model_.IndexOf(job.nodes(i));
    if (node < 0) continue;
    sched::NodeAllocation a = FromRecord(model_, static_cast<uint32_t>(node), job.allocs(i));
    sched::NodeUsage& u = usage_[static_cast<size_t>(node)];
    if (!sched::GiveBack(model_, u, a) && u.allocations > 0) --u.allocations;
    Count(nodes_[static_cast<size_t>(node)], a, -1, i > 0 && a.gpus != 0);
  }
}

void NodeTable::MarkCompleting(const wire::JobRecord& job, int sign) {
  for (const std::string& name : job.nodes()) {
    NodeRuntime* n = Find(name);
    if (n == nullptr) continue;  // A node removed by reconfiguration.
    if (sign > 0) {
      ++n->completing_jobs;
    } else if (n->completing_jobs > 0) {
      --n->completing_jobs;
    }
  }
}

wire::NodeRecord NodeTable::ToRecord(const NodeRuntime& n) const {
  wire::NodeRecord r;
  r.set_name(n.config->name);
  r.set_state(n.StateName());
  r.set_reason(n.reason);
  r.set_reason_time(n.reason_time);
  r.set_reason_uid(n.reason_uid);
  r.set_drain(n.drain);
  r.set_admin_down(n.admin_down);
  r.set_not_responding(n.down_not_responding);
  return r;
}

void NodeTable::ApplyRecord(const wire::NodeRecord& r) {
  NodeRuntime* n = Find(r.name());
  if (n == nullptr) return;  // Removed from the configuration since.
  n->drain = r.drain();
  n->admin_down = r.admin_down();
  n->down_not_responding = r.not_responding();
  n->reason = r.reason();
  n->reason_time = r.reason_time();
  n->reason_uid = r.reason_uid();
}

NodeTable::Candidates NodeTable::CandidatesIn(const conf::PartitionConfig& partition) const {
  Candidates c;
  for (uint32_t i : PartitionNodeIndices(partition, model_)) {
    const NodeRuntime& n = nodes_[i];
    if (n.Usable()) {
      c.usable.push_back(i);
    } else {
      c.unavailable.push_back(n.config->name);
    }
  }
  return c;
}

}  // namespace rota::ctld
