#include "ctld/core/step_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "common/hostlist.h"
#include "model/index_set.h"

namespace rota::ctld {
namespace {

std::vector<uint32_t> Ids(const std::string& text) {
  std::vector<uint32_t> out;
  model::IndexSet set = model::IndexSet::Parse(text).value_or(model::IndexSet());
  while (std::optional<uint32_t> v = set.PopFirst()) out.push_back(*v);
  return out;
}

void Remove(std::vector<uint32_t>& from, const std::vector<uint32_t>& ids) {
  from.erase(std::remove_if(
                 from.begin(), from.end(),
                 [&](uint32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }),
             from.end());
}

// The first `count` ids of `preferred`, then of `rest` (ids not yet taken).
std::vector<uint32_t> Take(uint32_t count, const std::vector<uint32_t>& preferred,
                           const std::vector<uint32_t>& rest) {
  std::vector<uint32_t> out;
  for (const std::vector<uint32_t>* list : {&preferred, &rest}) {
    for (uint32_t id : *list) {
      if (out.size() >= count) break;
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

StepNodeCapacity StepNodeResources::Capacity() const {
  StepNodeCapacity c;
  c.cpus = static_cast<uint32_t>(cpus.size());
  c.gpus = static_cast<uint32_t>(gpus.size());
  c.mem_mb = mem_mb;
  return c;
}

std::vector<StepNodeResources> JobStepResources(const wire::JobRecord& job) {
  std::vector<StepNodeResources> out(job.nodes_size());
  for (int i = 0; i < job.nodes_size(); ++i) {
    StepNodeResources& r = out[i];
    uint64_t mem = i < job.mem_by_node_mb_size() ? job.mem_by_node_mb(i) : 0;
    if (i < job.allocs_size()) {
      const wire::NodeAlloc& alloc = job.allocs(i);
      r.cpus = Ids(alloc.cpu_ids());
      if (r.cpus.empty()) {
        for (uint32_t c = 0; c < alloc.cpus(); ++c) r.cpus.push_back(c);
      }
      r.gpus = Ids(alloc.gpu_ids());
      if (alloc.mem_mb() > 0) mem = alloc.mem_mb();
    } else {
      for (uint32_t c = 0; c < job.cpus_per_node(); ++c) r.cpus.push_back(c);
      for (uint32_t g = 0; g < job.gpus_per_node(); ++g) r.gpus.push_back(g);
    }
    if (mem > 0) r.mem_mb = mem;
  }
  return out;
}

void SubtractStepResources(const wire::JobRecord& job, const wire::JobStepRecord& step,
                           std::vector<StepNodeResources>& free) {
  if (step.overlap()) return;
  for (int k = 0; k < step.nodes_size(); ++k) {
    for (int i = 0; i < job.nodes_size() && i < static_cast<int>(free.size()); ++i) {
      if (job.nodes(i) != step.nodes(k)) continue;
      StepNodeResources& f = free[i];
      if (k < step.cpu_ids_size()) Remove(f.cpus, Ids(step.cpu_ids(k)));
      if (k < step.gpu_ids_size()) Remove(f.gpus, Ids(step.gpu_ids(k)));
      if (k < step.mem_mb_size() && f.mem_mb != StepNodeCapacity::kUnlimitedMemory) {
        f.mem_mb -= std::min(f.mem_mb, step.mem_mb(k));
      }
    }
  }
}

StepResourceRequest StepResourceRequestOf(const wire::CreateStepRequest& request) {
  StepResourceRequest r;
  r.shape.num_tasks = request.num_tasks();
  r.shape.num_nodes = request.num_nodes();
  r.shape.ntasks_per_node = request.ntasks_per_node();
  r.shape.cpus_per_task = request.cpus_per_task();
  r.shape.gpus_per_task = request.gpus_per_task();
  r.shape.gpus_per_node = request.gpus_per_node();
  r.shape.mem_per_node_mb = request.mem_per_node_mb();
  r.shape.mem_per_cpu_mb = request.mem_per_node_mb() > 0 ? 0 : request.mem_per_cpu_mb();
  r.gpus = request.gpus();
  r.overlap = request.overlap();
  r.shape.overcommit = request.overcommit();
  // Checked by srun; a value it did not check is block.
  r.shape.distribution =
      model::ParseTaskDistribution(request.distribution()).value_or(model::TaskDistribution());
  return r;
}

Result<std::vector<uint32_t>> StepNodeChoice(const wire::JobRecord& job,
                                             const wire::CreateStepRequest& request) {
  auto expand = [](const std::string& list) -> Result<std::set<std::string>> {
    if (list.empty()) return std::set<std::string>();
    Result<std::vector<std::string>> names = ExpandHostlist(list);
    if (!names.ok()) return names.status();
    return std::set<std::string>(names->begin(), names->end());
  };
  Result<std::set<std::string>> wanted = expand(request.nodelist());
  if (!wanted.ok()) return wanted.status();
  Result<std::set<std::string>> excluded = expand(request.exclude());
  if (!excluded.ok()) return excluded.status();
  std::set<std::string> job_nodes(job.nodes().begin(), job.nodes().end());
  for (const std::string& name : *wanted) {
    if (job_nodes.count(name) == 0 || excluded->count(name) > 0) {
      return InvalidArgument(
          fmt::format("Requested node configuration is not available ({} is not one of the "
                      "job's nodes)",
                      name));
    }
  }
  std::vector<uint32_t> out;
  for (int i = 0; i < job.nodes_size(); ++i) {
    const std::string& name = job.nodes(i);
    if (!wanted->empty() && wanted->count(name) == 0) continue;
    if (excluded->count(name) > 0) continue;
    out.push_back(static_cast<uint32_t>(i));
  }
  if (out.empty()) return InvalidArgument("Requested node configuration is not available");
  return out;
}

namespace {

// What each node of `layout` holds for the step, from what is free there.
StepPlacement HoldStepResources(const std::vector<StepNodeResources>& job,
                                const std::vector<StepNodeResources>& free,
                                const StepResourceRequest& request, const StepShape& shape,
                                StepLayout layout);

// -m arbitrary: the nodes and their task counts are given; each must hold its
// tasks in the allocation (else the step can never run) and now.
Result<StepLayout> LayOutGivenTasks(const std::vector<StepNodeResources>& job,
                                    const std::vector<StepNodeResources>& pool,
                                    const StepResourceRequest& request, const StepShape& shape) {
  StepLayout layout;
  for (size_t i = 0; i < request.tasks_on_node.size() && i < job.size(); ++i) {
    const uint32_t tasks = request.tasks_on_node[i];
    if (tasks == 0) continue;
    if (TasksThatFit(job[i].Capacity(), shape) < tasks) {
      return InvalidArgument(fmt::format(
          "More processors requested than permitted ({} tasks on one node, room for {})", tasks,
          TasksThatFit(job[i].Capacity(), shape)));
    }
    if (TasksThatFit(pool[i].Capacity(), shape) < tasks) {
      return Status(StatusCode::kFailedPrecondition, std::string(kStepNodesBusy));
    }
    layout.node_indices.push_back(static_cast<uint32_t>(i));
    layout.tasks_per_node.push_back(tasks);
    layout.num_tasks += tasks;
  }
  if (layout.node_indices.empty())
    return InvalidArgument("Requested node configuration is not available");
  return layout;
}

}  // namespace

Result<StepPlacement> PlaceStep(const std::vector<StepNodeResources>& job,
                                const std::vector<StepNodeResources>& free,
                                const StepResourceRequest& request) {
  if (!request.tasks_on_node.empty()) {
    StepShape shape = request.shape;
    if (request.gpus > 0) {  // --gpus=N: each of the step's nodes its share
      const auto nodes = static_cast<uint32_t>(std::count_if(request.tasks_on_node.begin(),
                                                             request.tasks_on_node.end(),
                                                             [](uint32_t n) { return n > 0; }));
      if (nodes > 0)
        shape.gpus_per_node = std::max(shape.gpus_per_node, (request.gpus + nodes - 1) / nodes);
    }
    Result<StepLayout> given = LayOutGivenTasks(job, request.overlap ? job : free, request, shape);
    if (!given.ok()) return given.status();
    return HoldStepResources(job, free, request, shape, std::move(given).value());
  }
  std::vector<StepNodeCapacity> whole_capacity;
  for (const StepNodeResources& r : job) whole_capacity.push_back(r.Capacity());
  StepShape shape = request.shape;
  Result<StepLayout> whole = LayOutStep(whole_capacity, shape);
  if (!whole.ok()) return whole.status();
  if (request.gpus > 0) {
    // --gpus=N over the nodes the step would take: each node its share.
    const uint32_t nodes = static_cast<uint32_t>(whole->node_indices.size());
    shape.gpus_per_node = std::max(shape.gpus_per_node, (request.gpus + nodes - 1) / nodes);
    whole = LayOutStep(whole_capacity, shape);
    if (!whole.ok()) return whole.status();
  }

  // Now: the same number of tasks on as many nodes, among those that can
  // hold one of its tasks with what is free there.
  const std::vector<StepNodeResources>& pool = request.overlap ? job : free;
  StepShape now = shape;
  now.num_tasks = whole->num_tasks;
  now.num_nodes = static_cast<uint32_t>(whole->node_indices.size());
  std::vector<uint32_t> usable;
  std::vector<StepNodeCapacity> usable_capacity;
  for (size_t i = 0; i < pool.size(); ++i) {
    StepNodeCapacity c = pool[i].Capacity();
    if (TasksThatFit(c, now) == 0) continue;
    usable.push_back(static_cast<uint32_t>(i));
    usable_capacity.push_back(c);
  }
  if (usable.size() < now.num_nodes) {
    return Status(StatusCode::kFailedPrecondition, std::string(kStepNodesBusy));
  }
  Result<StepLayout> placed = LayOutStep(usable_capacity, now);
  if (!placed.ok()) return Status(StatusCode::kFailedPrecondition, std::string(kStepNodesBusy));

  StepLayout layout = std::move(placed).value();
  layout.warning = whole->warning;
  for (uint32_t& index : layout.node_indices) index = usable[index];
  return HoldStepResources(job, free, request, shape, std::move(layout));
}

namespace {

StepPlacement HoldStepResources(const std::vector<StepNodeResources>& job,
                                const std::vector<StepNodeResources>& free,
                                const StepResourceRequest& request, const StepShape& shape,
                                StepLayout layout) {
  StepPlacement out;
  out.layout = std::move(layout);
  const uint32_t cpus_per_task = std::max<uint32_t>(1, shape.cpus_per_task);
  for (size_t k = 0; k < out.layout.node_indices.size(); ++k) {
    const uint32_t node = out.layout.node_indices[k];
    const uint32_t tasks = out.layout.tasks_per_node[k];
    // An overlapping step still prefers what no other step uses.
    const StepNodeResources& preferred = node < free.size() ? free[node] : job[node];
    StepNodeResources held;
    held.cpus = Take(tasks * cpus_per_task, preferred.cpus,
                     request.overlap ? job[node].cpus : preferred.cpus);
    const uint32_t gpus =
        shape.gpus_per_task > 0 ? tasks * shape.gpus_per_task : shape.gpus_per_node;
    if (gpus > 0)
      held.gpus = Take(gpus, preferred.gpus, request.overlap ? job[node].gpus : preferred.gpus);
    held.mem_mb = shape.mem_per_node_mb > 0
                      ? shape.mem_per_node_mb
                      : shape.mem_per_cpu_mb * static_cast<uint64_t>(held.cpus.size());
    out.held.push_back(std::move(held));
  }
  return out;
}

}  // namespace

}  // namespace rota::ctld
