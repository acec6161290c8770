#include "noded/stepd/step_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/task_distribution.h"
#include "noded/cpu_list.h"

namespace rota::noded {

Result<StepPlan> PlanStep(const NodeContext& node, const wire::ListStepsResponse& known,
                          uint32_t node_index_in_step, uint32_t caller_uid, bool privileged) {
  const std::string& me = node.settings.node_name;
  if (known.steps_size() != 1 || known.jobs_size() != 1) {
    return NotFound("the controller knows no such running step");
  }
  const uint32_t job_id = known.jobs(0).job_id();
  const uint32_t step_id = known.steps(0).step_id();
  const wire::JobStepRecord& step = known.steps(0);
  const wire::JobLaunch& job = known.jobs(0);
  if (!privileged && caller_uid != job.spec().uid()) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  const int node_index = static_cast<int>(node_index_in_step);
  if (node_index >= step.nodes_size() || step.nodes(node_index) != me) {
    return InvalidArgument(fmt::format("step {}.{} has no tasks on {}", job_id, step_id, me));
  }
  int alloc_index = -1;
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    if (job.nodes(i) == me) alloc_index = i;
  }
  if (alloc_index < 0) return InvalidArgument("the job holds nothing on " + me);
  const wire::NodeAlloc& alloc = job.allocs(alloc_index);
  const uint32_t local_tasks = step.tasks_per_node(node_index);

  // What the step holds here of the job's CPUs and GPUs (the controller's
  // record; all of the job's when it holds none of its own).
  std::vector<uint32_t> job_gpus = ParseCpuList(alloc.gpu_ids()).value_or(std::vector<uint32_t>{});
  std::sort(job_gpus.begin(), job_gpus.end());
  std::vector<uint32_t> job_cpus = ParseCpuList(alloc.cpu_ids()).value_or(std::vector<uint32_t>{});
  std::sort(job_cpus.begin(), job_cpus.end());
  auto held_here = [&](const auto& lists, const std::vector<uint32_t>& job_ids) {
    if (node_index >= lists.size()) return job_ids;
    std::vector<uint32_t> held =
        ParseCpuList(lists.Get(node_index)).value_or(std::vector<uint32_t>{});
    std::sort(held.begin(), held.end());
    const bool inside = std::includes(job_ids.begin(), job_ids.end(), held.begin(), held.end());
    return held.empty() || !inside ? job_ids : held;
  };
  const std::vector<uint32_t> step_cpus = held_here(step.cpu_ids(), job_cpus);
  const std::vector<uint32_t> step_held_gpus = held_here(step.gpu_ids(), job_gpus);
  const bool step_holds_gpus =
      node_index < step.gpu_ids_size() && !step.gpu_ids(node_index).empty();
  const uint32_t cpus_per_task = std::max<uint32_t>(1, step.cpus_per_task());

  // CPU binding (--cpu-bind, else the node's default).
  Result<CpuBindSpec> cpu_bind = ParseCpuBindSpec(step.cpu_bind());
  if (!cpu_bind.ok()) return cpu_bind.status();
  TaskCpuRequest cpu_request;
  cpu_request.step_cpus = step_cpus;
  cpu_request.job_cpus = job_cpus;
  cpu_request.cpus_per_task = cpus_per_task;
  cpu_request.local_tasks = local_tasks;
  cpu_request.hint = step.hint();
  cpu_request.ntasks_per_core = step.ntasks_per_core();
  cpu_request.sockets =
      model::ParseTaskDistribution(step.distribution()).value_or(model::TaskDistribution()).sockets;
  if (const conf::NodeConfig* shape = node.config->FindNode(me); shape != nullptr) {
    cpu_request.threads_per_core = shape->threads_per_core;
    cpu_request.cores_per_socket = shape->cores_per_socket;
  }
  const std::vector<std::string>& plugins = node.config->settings.task_plugins;
  cpu_request.affinity_by_default =
      std::find(plugins.begin(), plugins.end(), "task/affinity") != plugins.end();
  Result<TaskCpuBinding> cpu_binding = BindTaskCpus(*cpu_bind, cpu_request);
  if (!cpu_binding.ok()) return cpu_binding.status();

  // Memory binding (--mem-bind), by the NUMA nodes of the tasks' CPUs.
  Result<MemBindSpec> mem_bind = ParseMemBindSpec(step.mem_bind());
  if (!mem_bind.ok()) return mem_bind.status();
  TaskMemRequest mem_request;
  mem_request.local_tasks = local_tasks;
  mem_request.task_cpus = cpu_binding->task_cpus;
  mem_request.step_cpus = step_cpus;
  if (mem_bind->kind != MemBindSpec::kNone) {
    mem_request.numa_node_of_cpu = ReadNumaLayout("/sys/devices/system/node");
  }
  Result<TaskMemBinding> mem_binding = BindTaskMemory(*mem_bind, mem_request);
  if (!mem_binding.ok()) return mem_binding.status();

  // GPU binding, among the step's GPUs.
  Result<GpuBindSpec> bind = ParseGpuBind(step.gpu_bind());
  if (!bind.ok()) return bind.status();
  TaskGpuRequest gpu_request;
  for (uint32_t index : step_held_gpus) {
    JobGpu g{index, {}};
    for (const GpuDevice& d : node.gpus->devices()) {
      // NVML's CPU affinity, else gres.conf Cores= (core indices) as CPUs.
      if (d.index == index) {
        g.cpus = !d.cpus.empty() ? d.cpus : CpusOfCores(d.cores, cpu_request.threads_per_core);
      }
    }
    gpu_request.gpus.push_back(std::move(g));
  }
  gpu_request.local_tasks = local_tasks;
  gpu_request.gpus_per_task = step.gpus_per_task();
  for (uint32_t t = 0; t < local_tasks; ++t) {
    // closest: the GPUs near the CPUs the task is bound to, else its share.
    if (cpu_binding->bound()) {
      gpu_request.task_cpus.push_back(cpu_binding->task_cpus[t]);
      continue;
    }
    std::vector<uint32_t> mine;
    for (uint32_t c = t * cpus_per_task; c < (t + 1) * cpus_per_task && c < step_cpus.size(); ++c) {
      mine.push_back(step_cpus[c]);
    }
    gpu_request.task_cpus.push_back(std::move(mine));
  }
  Result<TaskGpuBinding> binding = BindTaskGpus(*bind, gpu_request);
  if (!binding.ok()) return binding.status();
  const bool constrained = node.config->cgroup.constrain_devices && node.cgroups->enforcing();
  // Tasks confined to their own GPUs: bound to some, or of a step that holds
  // some of the job's apart from its other steps.
  const bool confine_gpus = constrained && (binding->per_task || step_holds_gpus);

  StepPlan plan;
  plan.job = job;
  plan.step = step;
  plan.node_index = node_index;
  plan.local_tasks = local_tasks;
  plan.task_ids = model::StepTaskIdsOnNode(step, node_index);
  plan.cpus_per_task = cpus_per_task;
  plan.job_gpus = std::move(job_gpus);
  plan.step_gpus = step_held_gpus;
  plan.step_cpus = step_cpus;
  plan.cpu_bind = *cpu_bind;
  plan.cpu_binding = std::move(cpu_binding).value();
  plan.mem_binding = std::move(mem_binding).value();
  plan.gpu_bind = *bind;
  plan.gpu_binding = std::move(binding).value();
  plan.devices_constrained = constrained;
  plan.confine_gpus = confine_gpus;
  return plan;
}

}  // namespace rota::noded
