#pragma once

// The cluster as the selection sees it: each node's fixed layout (sockets,
// cores, memory, GPUs with their socket affinity, features, weight, leaf
// switch) and, apart from it, what is free right now (NodeUsage). Built once
// from the configuration; usage changes as jobs start and end.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/memory_size.h"
#include "conf/cluster_config.h"
#include "sched/slot_set.h"

namespace rota::sched {

inline constexpr uint32_t kMaxGpusPerNode = 64;  // GPU sets are 64-bit masks
using GpuMask = uint64_t;

// GPU type names ("a100", "1g.10gb", "" for untyped) as small ids.
class GpuTypes {
 public:
  static constexpr int kAny = -1;      // A request without a type
  static constexpr int kUnknown = -2;  // A type no node has: never matches

  int Intern(const std::string& name);
  int Find(const std::string& name) const;  // kAny for "", kUnknown if absent
  const std::string& Name(int id) const { return names_.at(static_cast<size_t>(id)); }

 private:
  std::vector<std::string> names_;
  std::map<std::string, int> ids_;
};

struct GpuSlot {
  int type = 0;
  uint32_t socket_mask = 0;  // Sockets local to it (gres.conf Cores=); all when not given
};

// A socket mask has one bit per socket up to 30; bit 31 stands for socket 31
// and every later one. Nodes with more sockets than that exist in
// configurations: a NodeName line with only CPUs=N describes N sockets of one
// core, as in Slurm.
inline uint32_t SocketBit(uint32_t socket) { return 1u << (socket < 31 ? socket : 31); }
inline bool InSocketMask(uint32_t mask, uint32_t socket) { return (mask & SocketBit(socket)) != 0; }
// Every socket of a node with `sockets` of them.
inline uint32_t AllSocketsMask(uint32_t sockets) {
  return sockets >= 32 ? ~0u : (1u << sockets) - 1;
}

struct NodeShape {
  std::string name;
  uint32_t sockets = 1;
  uint32_t cores_per_socket = 1;
  uint32_t threads_per_core = 1;
  // Under CR_CPU a slot is one hardware thread; otherwise a whole core, which
  // gives the job all of its threads (Slurm allocates cores).
  bool slot_is_thread = false;
  MemoryMb memory_mb = 0;
  std::vector<GpuSlot> gpus;  // By GPU index (gres.conf order)
  std::vector<std::string> features;
  uint32_t weight = 1;
  int leaf = -1;  // Index of its leaf switch; -1 without topology

  uint32_t slots() const { return sockets * slots_per_socket(); }
  uint32_t slots_per_socket() const {
    return cores_per_socket * (slot_is_thread ? threads_per_core : 1);
  }
  uint32_t cpus_per_slot() const { return slot_is_thread ? 1 : threads_per_core; }
  uint32_t cpus() const { return slots() * cpus_per_slot(); }
  uint32_t SocketOf(uint32_t slot) const { return slot / slots_per_socket(); }
  bool HasFeature(const std::string& f) const;
};

// What is free on one node.
struct NodeUsage {
  SlotSet free_slots;
  std::vector<uint32_t> free_per_socket;
  uint32_t free_count = 0;  // free_slots.Count(), kept in step
  MemoryMb free_mem_mb = 0;
  GpuMask free_gpus = 0;
  uint32_t allocations = 0;       // Jobs holding part of the node
  bool held_exclusively = false;  // One --exclusive job holds it whole

  bool idle() const { return allocations == 0; }
};

struct SwitchShape {
  std::string name;
  int parent = -1;
  int level = 0;
};

struct ClusterModel {
  GpuTypes gpu_types;
  std::vector<NodeShape> nodes;  // Configuration order
  std::map<std::string, uint32_t> index;
  // Each partition's nodes as indices into `nodes`, in configuration order:
  // every scheduling pass asks for them once per job, too often to look up
  // each name again.
  std::map<std::string, std::vector<uint32_t>> partition_nodes;
  std::vector<SwitchShape> switches;  // Empty without topology/tree
  bool memory_consumable = false;     // CR_*_Memory
  // EmptyUsage() for every node, kept by BuildClusterModel: "could this job
  // ever run here" is asked at every submission.
  std::vector<NodeUsage> empty_usage;

  const NodeShape* Find(const std::string& name) const;
  int32_t IndexOf(const std::string& name) const;  // -1 when unknown
  // A node with nothing allocated.
  NodeUsage EmptyUsage(uint32_t node) const;
  std::vector<NodeUsage> EmptyUsage() const;
};

// From slurm.conf (NodeName lines, SelectTypeParameters), gres.conf (GPU
// devices, Types, Cores=) and topology.conf.
ClusterModel BuildClusterModel(const conf::ClusterConfig& config);

}  // namespace rota::sched
