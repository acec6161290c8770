#pragma once

// Where a job step's tasks go inside its job's allocation: which of the job's
// nodes, and how many tasks on each (block distribution: task ids are given
// node by node, in order). Pure: the allocation and the request in, the
// layout or Slurm's refusal out.

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/task_distribution.h"

namespace rota::ctld {

// One node of the job's allocation, as far as a step's tasks are concerned.
struct StepNodeCapacity {
  uint32_t cpus = 0;                   // CPUs the job holds there
  uint32_t gpus = 0;                   // GPUs the job holds there
  uint64_t mem_mb = kUnlimitedMemory;  // Memory in MB the job holds there
  static constexpr uint64_t kUnlimitedMemory = UINT64_MAX;
};

// srun's shape options; 0 means "not given".
struct StepShape {
  uint32_t num_tasks = 0;        // -n
  uint32_t num_nodes = 0;        // -N
  uint32_t ntasks_per_node = 0;  // --ntasks-per-node
  uint32_t cpus_per_task = 0;    // -c (1 when not given)
  uint32_t gpus_per_task = 0;    // --gpus-per-task
  uint32_t gpus_per_node = 0;    // --gres=gpu:N (or --gpus spread over the nodes)
  uint64_t mem_per_node_mb = 0;  // --mem
  uint64_t mem_per_cpu_mb = 0;   // --mem-per-cpu
  // -O: a node's CPUs do not bound its tasks (each node still needs one
  // CPU); the tasks are spread evenly over the step's nodes.
  bool overcommit = false;
  model::TaskDistribution distribution{};  // -m: how many tasks each node gets
};

// How many tasks of `shape` one node can hold (its CPUs, GPUs and memory, and
// --ntasks-per-node); 0 when it cannot hold one.
uint32_t TasksThatFit(const StepNodeCapacity& node, const StepShape& shape);

struct StepLayout {
  std::vector<uint32_t> node_indices;    // Into the job's nodes, ascending
  std::vector<uint32_t> tasks_per_node;  // Parallel to node_indices; each >= 1
  uint32_t num_tasks = 0;
  // Set when the request was adjusted, as srun says: "can't run 1 processes on
  // 2 nodes, setting nnodes to 1".
  std::string warning;
};

// Lays `shape` out over `nodes` (the job's allocation, in its order). Without
// -n: one task per node (or --ntasks-per-node); without -N: as many of the
// job's nodes as there are tasks, at most all of them. Each node takes one
// task first, then the remaining tasks fill the nodes in order up to what
// their CPUs (and GPUs, with --gpus-per-task) allow.
// Errors (kInvalidArgument, Slurm's words): more nodes than the job has, more
// tasks than the nodes' CPUs can hold, more memory or GPUs than they have.
Result<StepLayout> LayOutStep(const std::vector<StepNodeCapacity>& nodes, const StepShape& shape);

}  // namespace rota::ctld
