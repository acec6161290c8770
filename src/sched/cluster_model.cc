#include "sched/cluster_model.h"

#include <algorithm>

#include "common/strings.h"

namespace rota::sched {

int GpuTypes::Intern(const std::string& name) {
  auto [it, inserted] = ids_.emplace(name, static_cast<int>(names_.size()));
  if (inserted) names_.push_back(name);
  return it->second;
}

int GpuTypes::Find(const std::string& name) const {
  if (name.empty()) return kAny;
  auto it = ids_.find(name);
  return it == ids_.end() ? kUnknown : it->second;
}

bool NodeShape::HasFeature(const std::string& f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

const NodeShape* ClusterModel::Find(const std::string& name) const {
  int32_t i = IndexOf(name);
  return i < 0 ? nullptr : &nodes[static_cast<size_t>(i)];
}

int32_t ClusterModel::IndexOf(const std::string& name) const {
  auto it = index.find(name);
  return it == index.end() ? -1 : static_cast<int32_t>(it->second);
}

NodeUsage ClusterModel::EmptyUsage(uint32_t node) const {
  const NodeShape& n = nodes[node];
  NodeUsage u;
  u.free_slots = SlotSet(n.slots(), true);
  u.free_per_socket.assign(n.sockets, n.slots_per_socket());
  u.free_count = n.slots();
  u.free_mem_mb = n.memory_mb;
  u.free_gpus = n.gpus.size() >= 64 ? ~GpuMask{0} : (GpuMask{1} << n.gpus.size()) - 1;
  return u;
}

std::vector<NodeUsage> ClusterModel::EmptyUsage() const {
  std::vector<NodeUsage> all;
  all.reserve(nodes.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) all.push_back(EmptyUsage(i));
  return all;
}

namespace {

// The node's GPUs in index order: gres.conf's gpu devices (a count-only line
// stands for Count GPUs), or else the counts of the NodeName line's Gres=.
std::vector<GpuSlot> GpusOf(const conf::ClusterConfig& config, const conf::NodeConfig& node,
                            GpuTypes& types) {
  std::vector<GpuSlot> gpus;
  uint32_t all = AllSocketsMask(node.sockets);
  const std::vector<conf::GresDevice>* devices = config.gres.DevicesOf(node.name);
  bool described = false;
  if (devices != nullptr) {
    for (const conf::GresDevice& d : *devices) {
      if (!EqualsIgnoreCase(d.name, "gpu")) continue;
      described = true;
      uint32_t mask = 0;
      for (uint32_t core : d.cores) mask |= SocketBit(core / node.cores_per_socket);
      GpuSlot slot{types.Intern(d.type), mask == 0 ? all : mask & all};
      for (uint64_t i = 0; i < d.count && gpus.size() < kMaxGpusPerNode; ++i) gpus.push_back(slot);
    }
  }
  if (!described) {
    for (const GresSpec& g : node.gres) {
      if (!EqualsIgnoreCase(g.name, "gpu")) continue;
      GpuSlot slot{types.Intern(g.type), all};
      for (uint64_t i = 0; i < g.count && gpus.size() < kMaxGpusPerNode; ++i) gpus.push_back(slot);
    }
  }
  return gpus;
}

}  // namespace

ClusterModel BuildClusterModel(const conf::ClusterConfig& config) {
  ClusterModel m;
  bool slot_is_thread = false;
  for (const std::string& p : config.settings.select_type_parameters) {
    if (p.find("Memory") != std::string::npos) m.memory_consumable = true;
    if (p == "CR_CPU" || p == "CR_CPU_Memory") slot_is_thread = true;
  }
  for (const conf::NodeConfig& c : config.nodes) {
    NodeShape n;
    n.name = c.name;
    n.sockets = std::max(1u, c.sockets * std::max(1u, c.boards));
    n.cores_per_socket = std::max(1u, c.cores_per_socket);
    n.threads_per_core = std::max(1u, c.threads_per_core);
    n.slot_is_thread = slot_is_thread;
    // CPUs= below the thread count (hyper-threads not used): one slot per CPU.
    if (c.cpus == c.cores() && n.threads_per_core > 1) n.threads_per_core = 1;
    n.memory_mb = c.real_memory_mb;
    n.gpus = GpusOf(config, c, m.gpu_types);
    n.features = c.features;
    n.weight = c.weight;
    m.index.emplace(n.name, static_cast<uint32_t>(m.nodes.size()));
    m.nodes.push_back(std::move(n));
  }
  if (config.settings.topology_plugin == "topology/tree" && !config.topology.empty()) {
    const std::vector<conf::SwitchConfig>& sw = config.topology.switches;
    std::map<std::string, int> by_name;
    for (size_t i = 0; i < sw.size(); ++i) {
      m.switches.push_back({sw[i].name, -1, sw[i].level});
      by_name.emplace(sw[i].name, static_cast<int>(i));
    }
    for (size_t i = 0; i < sw.size(); ++i) {
      for (const std::string& child : sw[i].switches) {
        auto it = by_name.find(child);
        if (it != by_name.end())
          m.switches[static_cast<size_t>(it->second)].parent = static_cast<int>(i);
      }
    }
    for (const auto& [node, leaf] : config.topology.leaf_of) {
      int32_t i = m.IndexOf(node);
      if (i >= 0) m.nodes[static_cast<size_t>(i)].leaf = static_cast<int>(leaf);
    }
  }
  for (const conf::PartitionConfig& p : config.partitions) {
    std::vector<uint32_t>& indices = m.partition_nodes[p.name];
    for (const std::string& name : p.nodes) {
      if (int32_t i = m.IndexOf(name); i >= 0) indices.push_back(static_cast<uint32_t>(i));
    }
  }
  m.empty_usage = m.EmptyUsage();
  return m;
}

}  // namespace rota::sched
