#pragma once

// How a step's tasks go to its nodes (srun -m/--distribution, docs/steps.md):
// block fills each node with consecutive task ids, cyclic deals them out one
// at a time round the nodes, plane=N deals blocks of N. Used by the
// controller when it lays out a step, and by rotad, srun and the PMI servers
// to know which task ids a node runs. Pure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rota.pb.h"

namespace rota::model {

struct TaskDistribution {
  enum Kind { kBlock, kCyclic, kPlane };
  Kind kind = kBlock;
  uint32_t plane = 1;  // kPlane: tasks per block
};

// The node-level part of -m (before the first ':'; what follows, the
// distribution over sockets and cores, is taken and has no effect): "",
// "*", "block", "cyclic", "plane=N", also "N" alone is not taken.
// Errors: "arbitrary" (not supported) and anything else, in srun's words.
Result<TaskDistribution> ParseTaskDistribution(std::string_view text);

// How many of `tasks` tasks each node runs when `capacity[i]` bounds node i
// (every node takes one at least): block fills nodes in order after one each,
// cyclic and plane deal round the nodes that have room. REQUIRES: each
// capacity >= 1, tasks >= nodes and tasks <= the sum of the capacities.
std::vector<uint32_t> TasksPerNode(uint32_t tasks, const std::vector<uint32_t>& capacity,
                                   const TaskDistribution& distribution);

// The task ids of each node, node after node, for `tasks_per_node` dealt
// as `distribution` says (block: 0..n-1 on the first node, and so on).
std::vector<uint32_t> TaskIds(const std::vector<uint32_t>& tasks_per_node,
                              const TaskDistribution& distribution);

// The task ids node `node` of `step` runs: the record's list, or block for a
// step recorded without one.
std::vector<uint32_t> StepTaskIdsOnNode(const wire::JobStepRecord& step, int node);

}  // namespace rota::model
