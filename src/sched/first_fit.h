#pragma once

// The controller's first placement rule: the first nodes (by Weight, then
// configuration order) that can each hold the per-node request. Pure: no I/O,
// no clock. The full cons_tres selection (sockets, GPU affinity, topology,
// fragmentation) replaces it behind the same inputs.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/memory_size.h"

namespace rota::sched {

// What a node has free (or, for "could this ever run", has in total).
struct NodeResources {
  std::string name;
  uint32_t cpus = 0;
  MemoryMb mem_mb = 0;
  std::map<std::string, uint32_t> gpus_by_type;  // Type -> free count ("" when untyped)
  std::set<std::string> features;
  uint32_t weight = 1;
  bool idle = true;  // Nothing allocated: an --exclusive job may take it.

  uint32_t gpus(const std::string& type) const;  // "" counts every type
};

// The request per node, derived from the job's options by the controller.
struct ResourceRequest {
  uint32_t nodes = 1;
  uint32_t cpus_per_node = 1;
  MemoryMb mem_per_node_mb = 0;
  bool whole_node_memory = false;  // --mem=0 or no memory request under CR_*_Memory
  uint32_t gpus_per_node = 0;
  std::string gpu_type;                                   // "" accepts any type
  std::vector<std::string> required_features;             // All must be present (a&b)
  std::vector<std::vector<std::string>> any_of_features;  // Each group: one of (a|b)
  std::set<std::string> required_nodes;                   // -w: all of these, and others as needed
  std::set<std::string> excluded_nodes;                   // -x
  bool exclusive = false;
};

struct Placement {
  std::vector<size_t> node_indices;  // Into the candidate vector, in choice order
};

// True when `node` alone can hold one node's share of `req`.
bool NodeFits(const NodeResources& node, const ResourceRequest& req);

// Chooses req.nodes nodes from `candidates` (which must be in preference order
// already: Weight then configuration order). nullopt when impossible.
std::optional<Placement> FirstFit(const std::vector<NodeResources>& candidates,
                                  const ResourceRequest& req);

}  // namespace rota::sched
