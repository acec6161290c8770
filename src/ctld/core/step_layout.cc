#include "ctld/core/step_layout.h"

#include <fmt/format.h>

#include <algorithm>

namespace rota::ctld {

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

  const uint32_t cpus_per_task = std::max<uint32_t>(1, shape.cpus_per_task);
  std::vector<uint32_t> capacity;
  for (uint32_t i = 0; i < node_count; ++i) {
    uint32_t fit = nodes[i].cpus / cpus_per_task;
    if (shape.gpus_per_task > 0) fit = std::min(fit, nodes[i].gpus / shape.gpus_per_task);
    if (shape.ntasks_per_node > 0) fit = std::min(fit, shape.ntasks_per_node);
    capacity.push_back(fit);
  }
  uint64_t total = 0;
  for (uint32_t c : capacity) total += c;
  if (tasks > total ||
      std::any_of(capacity.begin(), capacity.end(), [](uint32_t c) { return c == 0; })) {
    return InvalidArgument(
        fmt::format("More processors requested than permitted ({} tasks, room for {} on {} nodes)",
                    tasks, total, node_count));
  }
  // One task on every node first, then block: fill each node in order.
  std::vector<uint32_t> per_node(node_count, 1);
  uint32_t left = tasks - node_count;
  for (uint32_t i = 0; i < node_count && left > 0; ++i) {
    uint32_t more = std::min(capacity[i] - 1, left);
    per_node[i] += more;
    left -= more;
  }
  for (uint32_t i = 0; i < node_count; ++i) layout.node_indices.push_back(i);
  layout.tasks_per_node = std::move(per_node);
  layout.num_tasks = tasks;
  return layout;
}

}  // namespace rota::ctld
