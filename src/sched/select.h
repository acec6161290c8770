#pragma once

// Choosing the nodes of a job (select/cons_tres): among the candidate nodes
// (the partition's usable ones), those that can hold a share, Weight first,
// then the tightest fit (fewest free GPUs of the type, then cores, then
// memory) so that whole free nodes stay for big jobs. Under topology/tree,
// as few leaf switches as possible. Pure: no clock, no I/O.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/node_order.h"
#include "sched/request.h"

namespace rota::sched {

struct Selection {
  std::optional<Allocation> allocation;  // Set when the job fits now
  // Why not, when it does not: "Resources", or "Resources" with a detail
  // kept for diagnostics (e.g. waiting for --switches).
  std::string detail;
  uint32_t leaf_switches = 0;  // Leaves the allocation spans (topology/tree)
};

// A preference among nodes that ranks right after Weight, before the
// tightest fit (lower first). The backfill planner ranks the nodes idle now
// last for a reservation for later, keeping them for jobs that can start at
// once.
using NodeRank = std::function<uint64_t(uint32_t node)>;

// `rank` empty: every node ranks the same.
Selection Select(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                 const std::vector<uint32_t>& candidates, const Request& req,
                 const NodeRank& rank = {});

// Select among the nodes set in `among` and, when given, in `also` too (node
// bit sets, as many words as the cluster needs), with the same answer as
// Select given those nodes in ascending order. REQUIRES: `order` ranks
// `usage` as it is now.
//
// For the common requests (a fixed node count that any fitting nodes are
// enough for, or a job one node can hold; no -w, counted features or
// topology; no GPU type, or the one all GPUs have) it walks the nodes best
// first and assesses them only until it has what the choice can use: the
// best N plus the few that replace nodes whose exact placement fails. Other
// requests are answered by the plain scan.
Selection SelectInOrder(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                        const NodeOrder& order, const std::vector<uint64_t>& among,
                        const std::vector<uint64_t>* also, const Request& req);

// Whether SelectInOrder walks `order` for `req` (rather than scanning).
bool WalksInOrder(const ClusterModel& model, const NodeOrder& order, const Request& req);
// The same answer without an order at hand (it looks at every node's GPUs
// when `req` names a GPU type): to decide once whether an order is worth
// keeping for a kind of request.
bool WalksInOrder(const ClusterModel& model, const Request& req);

}  // namespace rota::sched
