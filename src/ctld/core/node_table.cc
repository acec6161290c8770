#include "ctld/core/node_table.h"

#include <algorithm>

#include "common/strings.h"
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
  } else if (running_jobs == 0) {
    base = "IDLE";
  } else {
    base = alloc_cpus >= config->cpus ? "ALLOCATED" : "MIXED";
  }
  if (drain) base += "+DRAIN";
  if (!responding) base += "*";
  return base;
}

uint32_t NodeRuntime::AllocGpus() const {
  uint32_t n = 0;
  for (const auto& [type, count] : alloc_gpus) n += count;
  return n;
}

sched::NodeResources NodeRuntime::Free() const {
  sched::NodeResources r = ConfiguredResources(*config);
  r.cpus -= std::min(r.cpus, alloc_cpus);
  r.mem_mb -= std::min(r.mem_mb, alloc_mem_mb);
  for (auto& [type, count] : r.gpus_by_type) {
    auto it = alloc_gpus.find(type);
    if (it != alloc_gpus.end()) count -= std::min(count, it->second);
  }
  r.idle = running_jobs == 0;
  return r;
}

NodeTable::NodeTable(const conf::ClusterConfig& config) {
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

void NodeTable::Allocate(const wire::JobRecord& job) {
  for (int i = 0; i < job.nodes_size(); ++i) {
    NodeRuntime* n = Find(job.nodes(i));
    if (n == nullptr) continue;  // A node removed by reconfiguration.
    n->alloc_cpus += job.cpus_per_node();
    n->alloc_mem_mb += i < job.mem_by_node_mb_size() ? job.mem_by_node_mb(i) : 0;
    if (job.gpus_per_node() > 0) n->alloc_gpus[job.gpu_type()] += job.gpus_per_node();
    ++n->running_jobs;
  }
}

void NodeTable::Release(const wire::JobRecord& job) {
  for (int i = 0; i < job.nodes_size(); ++i) {
    NodeRuntime* n = Find(job.nodes(i));
    if (n == nullptr) continue;
    n->alloc_cpus -= std::min(n->alloc_cpus, job.cpus_per_node());
    MemoryMb mem = i < job.mem_by_node_mb_size() ? job.mem_by_node_mb(i) : 0;
    n->alloc_mem_mb -= std::min(n->alloc_mem_mb, mem);
    if (job.gpus_per_node() > 0) {
      uint32_t& g = n->alloc_gpus[job.gpu_type()];
      g -= std::min(g, job.gpus_per_node());
    }
    if (n->running_jobs > 0) --n->running_jobs;
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

}  // namespace rota::ctld
