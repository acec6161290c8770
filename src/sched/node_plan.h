#pragma once

// Placing one node's share of a job: which cores and which GPUs. GPUs and
// cores are taken on the same sockets when they can be (gres.conf Cores=
// tells which sockets a GPU is local to): a 4-GPU, 64-core job on a node of
// two sockets with 4 GPUs and 64 cores each gets one whole socket.

#include <cstdint>
#include <optional>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/request.h"

namespace rota::sched {

// What one node must hold: tasks and GPUs (GPUs as the caller worked them
// out from the request's denominators; ignored under --gpus-per-socket).
struct NodeShare {
  uint32_t tasks = 1;
  uint32_t gpus = 0;
};

// GPUs of `node` that `type` accepts (GpuTypes::kAny: all).
GpuMask GpusOfType(const NodeShape& node, int type);

// The CPUs, memory and GPU count `share` needs on `node`.
struct ShareNeeds {
  uint32_t slots = 0;
  MemoryMb mem_mb = 0;
  uint32_t gpus = 0;
};
ShareNeeds NeedsOf(const NodeShape& node, const Request& req, NodeShare share);

// Counts only (no socket placement): could `usage` hold `share`? Cheap; used
// to rank thousands of nodes before placing on a few.
bool QuickFits(const NodeShape& node, const NodeUsage& usage, const Request& req, NodeShare share);

// QuickFits with the needs already worked out (they depend on the node only
// through its layout and memory, so a scan over alike nodes computes them once).
bool FitsNeeds(const NodeShape& node, const NodeUsage& usage, const Request& req,
               const ShareNeeds& needs);

// The exact placement of `share` on node `index`, or nullopt when it does not
// fit (including --gres-flags=enforce-binding refusing cross-socket cores).
std::optional<NodeAllocation> PlanNode(const ClusterModel& model, uint32_t index,
                                       const NodeUsage& usage, const Request& req, NodeShare share);

}  // namespace rota::sched
