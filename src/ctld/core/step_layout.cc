#include "ctld/core/step_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

namespace rota::ctld {
namespace {

// What a node holds of an overcommitted step when CPUs are all that bound it.
constexpr uint32_t kOvercommitted = 1u << 20;

}  // namespace

uint32_t TasksThatFit(const StepNodeCapacity& node, const StepShape& shape) {
  const uint32_t cpus_per_task = std::max<uint32_t>(1, shape.cpus_per_task);
  uint32_t fit = node.cpus / cpus_per_task;
  if (shape.overcommit && node.cpus > 0) fit = kOvercommitted;
  if (shape.gpus_per_task > 0) fit = std::min(fit, node.gpus / shape.gpus_per_task);
  if (shape.gpus_per_node > node.gpus) fit = 0;
  if (node.mem_mb != StepNodeCapacity::kUnlimitedMemory) {
    if (shape.mem_per_node_mb > node.mem_mb) fit = 0;
    if (shape.mem_per_cpu_mb > 0) {
      const uint64_t per_task = shape.mem_per_cpu_mb * cpus_per_task;
      fit = static_cast<uint32_t>(std::min<uint64_t>(fit, node.mem_mb / per_task));
    }
  }
  if (shape.ntasks_per_node > 0) fit = std::min(fit, shape.ntasks_per_node);
  return fit;
}

Result<StepLayout> LayOutStep(const std::vector<StepNodeCapacity>& nodes, const StepShape& shape) {
  const uint32_t job_nodes = static_cast<uint32_t>(nodes.size());
  if (job_nodes == 0) return InvalidArgument("Requested node configuration is not available");
  if (shape.num_nodes > job_nodes) {
    return InvalidArgument(fmt::format(
        "Requested node configuration is not available ({} nodes asked, the job has {})",
        shape.num_nodes, job_nodes));
  }
  StepLayout layout;
  uint32_t node_count = shape.num_nodes;
  uint32_t tasks = shape.num_tasks;
  if (tasks == 0) {
    if (node_count == 0) node_count = job_nodes;
    tasks = node_count * std::max<uint32_t>(1, shape.ntasks_per_node);
  } else if (node_count == 0) {
    node_count = shape.ntasks_per_node > 0
                     ? (tasks + shape.ntasks_per_node - 1) / shape.ntasks_per_node
                     : tasks;
    node_count = std::min(node_count, job_nodes);
  } else if (tasks < node_count) {
    layout.warning = fmt::format("can't run {} processes on {} nodes, setting nnodes to {}", tasks,
                                 node_count, tasks);
    node_count = tasks;
  }

  // Tasks that fit on each node by CPUs alone, with memory, and with
  // everything: what runs out first names the error.
  StepShape cpu_shape = shape;
  cpu_shape.gpus_per_task = cpu_shape.gpus_per_node = 0;
  cpu_shape.mem_per_node_mb = cpu_shape.mem_per_cpu_mb = 0;
  StepShape memory_shape = cpu_shape;
  memory_shape.mem_per_node_mb = shape.mem_per_node_mb;
  memory_shape.mem_per_cpu_mb = shape.mem_per_cpu_mb;
  auto holds = [&](const StepShape& s, std::vector<uint32_t>* per_node) {
    uint64_t total = 0;
    bool every_node = true;
    for (uint32_t i = 0; i < node_count; ++i) {
      const uint32_t fit = TasksThatFit(nodes[i], s);
      if (per_node != nullptr) per_node->push_back(fit);
      total += fit;
      every_node = every_node && fit > 0;
    }
    return std::make_pair(every_node && tasks <= total, total);
  };
  std::vector<uint32_t> capacity;
  if (auto [ok, total] = holds(cpu_shape, nullptr); !ok) {
    return InvalidArgument(
        fmt::format("More processors requested than permitted ({} tasks, room for {} on {} nodes)",
                    tasks, total, node_count));
  }
  if (!holds(memory_shape, nullptr).first) {
    return InvalidArgument("Memory required by task is not available");
  }
  if (!holds(shape, &capacity).first) {
    return InvalidArgument("Invalid generic resource (gres) specification");
  }
  // Overcommitted, CPUs no longer spread the tasks: an even share per node,
  // as far as the other resources allow.
  if (shape.overcommit) {
    const uint32_t share = (tasks + node_count - 1) / node_count;
    std::vector<uint32_t> even = capacity;
    for (uint32_t& c : even) c = std::min(c, share);
    if (std::accumulate(even.begin(), even.end(), uint64_t{0}) >= tasks) capacity = std::move(even);
  }
  // One task on every node first, then as -m deals them (block: fill each
  // node in order).
  for (uint32_t i = 0; i < node_count; ++i) layout.node_indices.push_back(i);
  layout.tasks_per_node = model::TasksPerNode(tasks, capacity, shape.distribution);
  layout.num_tasks = tasks;
  return layout;
}

}  // namespace rota::ctld
