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
  // kArbitrary: each task's node is given (SLURM_HOSTFILE, the step record's
  // task_ids); TasksPerNode and TaskIds deal it as block.
  enum Kind { kBlock, kCyclic, kPlane, kArbitrary };
  Kind kind = kBlock;
  uint32_t plane = 1;  // kPlane: tasks per block
  // The second level: how a node's CPUs go to its tasks when they are bound
  // (noded/stepd/task_cpu_binding.h). kSocketCyclic, Slurm's default: task
  // after task round the sockets, each task's CPUs on one socket where they
  // fit; kSocketBlock: the sockets filled in order; kSocketFcyclic: each CPU
  // of a task from the next socket.
  enum SocketLevel { kSocketCyclic, kSocketBlock, kSocketFcyclic };
  SocketLevel sockets = kSocketCyclic;
};

// -m as srun, sbatch and salloc take it: NODES[:SOCKETS[:CORES]][,Pack|,NoPack].
// Nodes: "", "*", "block", "cyclic", "plane=N", "arbitrary" ("N" alone is
// not taken); sockets: "", "*", "block", "cyclic", "fcyclic"; cores: the
// same words, taken without effect (a task's CPUs are bound core by core
// as the sockets level deals them), as are Pack and NoPack. Words in any
// case; "" is block. Errors: anything else (an empty level too), in srun's
// words.
Result<TaskDistribution> ParseTaskDistribution(std::string_view text);

// The node level's name as sacct's Layout shows it: "Block", "Cyclic",
// "Plane", "Arbitrary".
std::string_view LayoutName(const TaskDistribution& distribution);

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

// -m arbitrary: the hosts of SLURM_HOSTFILE's text, one per task in order
// (one per line or separated by commas; hostlist expressions expand; '#'
// starts a comment). `tasks`: how many are wanted (0: as many as the file
// names); the file must name that many at least, and the first `tasks` are
// taken. Errors say what is wrong with the file.
Result<std::vector<std::string>> ParseHostfile(std::string_view text, uint32_t tasks);

}  // namespace rota::model
