#include "noded/cage/step_cage.h"

#include <algorithm>
#include <set>

namespace rota::noded {

std::string StepCageName(uint32_t step_id) { return "step_" + std::to_string(step_id); }

std::string TaskCageName(uint32_t task_id) { return "task_" + std::to_string(task_id); }

uint64_t CageMemoryBytes(const conf::CgroupConf& conf, uint64_t mb) {
  double allowed = static_cast<double>(mb) * conf.allowed_ram_space_percent / 100.0;
  allowed = std::max(allowed, static_cast<double>(conf.min_ram_space_mb));
  return static_cast<uint64_t>(allowed * 1024 * 1024);
}

StepCageLimits PlanStepCage(const conf::CgroupConf& conf, bool enforcing,
                            const StepCageRequest& request) {
  StepCageLimits limits;
  if (!enforcing) return limits;
  limits.task_cpusets = conf.constrain_cores && request.tasks_bound_by_user;
  if (conf.constrain_cores) {
    // A task's cpuset must lie within its step's: CPUs a binding names
    // beyond the step's join the step's cage.
    std::set<uint32_t> cpus(request.step_cpus.begin(), request.step_cpus.end());
    if (limits.task_cpusets) {
      for (const std::vector<uint32_t>& task : request.task_cpus)
        cpus.insert(task.begin(), task.end());
    }
    limits.cpu_ids.assign(cpus.begin(), cpus.end());
  }
  if (conf.constrain_ram_space && request.step_mem_mb > 0) {
    limits.memory_bytes = CageMemoryBytes(conf, request.step_mem_mb);
  }
  limits.task_cages =
      limits.task_cpusets || (conf.constrain_devices && request.tasks_confined_to_gpus);
  return limits;
}

}  // namespace rota::noded
