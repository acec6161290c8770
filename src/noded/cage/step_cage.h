#pragma once

// What a job step's cage on this node holds: the step's CPUs and memory under
// cgroup.conf, and whether its tasks get cages of their own (CPUs bound by
// --cpu-bind, GPUs by --gpus-per-task). Pure: no cgroup is touched here;
// StepTasks hands the plan to the node's CgroupBackend.

#include <cstdint>
#include <string>
#include <vector>

#include "conf/cgroup_conf.h"
#include "noded/cage/cgroup_backend.h"

namespace rota::noded {

// "step_<id>", as Slurm names a step's cgroup ("step_batch" and
// "step_extern" for those two).
std::string StepCageName(uint32_t step_id);
// "task_<id>", by the task's global id (SLURM_PROCID).
std::string TaskCageName(uint32_t task_id);

// The memory a cage of `mb` megabytes may use under `conf`
// (AllowedRAMSpace percent, at least MinRAMSpace), in bytes.
uint64_t CageMemoryBytes(const conf::CgroupConf& conf, uint64_t mb);

struct StepCageRequest {
  std::vector<uint32_t> step_cpus;  // The step's CPUs here (allocation ids)
  uint64_t step_mem_mb = 0;         // The step's memory here; 0: none of its own
  // The user's --cpu-bind gave each task CPUs (not the node's default).
  bool tasks_bound_by_user = false;
  // Each local task's CPUs by that binding (allocation ids, within the
  // job's; map_cpu may name some beyond the step's, which then joins them).
  std::vector<std::vector<uint32_t>> task_cpus;
  bool tasks_confined_to_gpus = false;  // Each task gets a device cage
};

// The step's limits under `conf` (ConstrainCores, ConstrainRAMSpace); task
// cages when tasks narrow devices, or CPUs under ConstrainCores.
// `enforcing`: the backend enforces anything at all.
StepCageLimits PlanStepCage(const conf::CgroupConf& conf, bool enforcing,
                            const StepCageRequest& request);

}  // namespace rota::noded
