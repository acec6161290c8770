#pragma once

// Choosing the nodes of a job (select/cons_tres): among the candidate nodes
// (the partition's usable ones), those that can hold a share, Weight first,
// then the tightest fit (fewest free GPUs of the type, then cores, then
// memory) so that whole free nodes stay for big jobs. Under topology/tree,
// as few leaf switches as possible. Pure: no clock, no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/request.h"

namespace rota::sched {

struct Selection {
  std::optional<Allocation> allocation;  // Set when the job fits now
  // Why not, when it does not: "Resources", or "Resources" with a detail
  // kept for diagnostics (e.g. waiting for --switches).
  std::string detail;
  uint32_t leaf_switches = 0;  // Leaves the allocation spans (topology/tree)
};

Selection Select(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                 const std::vector<uint32_t>& candidates, const Request& req);

}  // namespace rota::sched
