#pragma once

// What one node's part of a job step is to run, worked out before anything
// is started: taken from the controller's records of the step and its job
// (never from the user's request, which only names them), with the tasks'
// CPU and GPU bindings. Pure apart from reading the node's context; the
// launch makes cages and processes from it (task_spawner.cc, in the order
// step_tasks.cc gives).

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "noded/node_context.h"
#include "noded/stepd/task_cpu_binding.h"
#include "noded/stepd/task_gpu_binding.h"
#include "noded/stepd/task_mem_binding.h"
#include "rota.pb.h"
#include "step_rpc.pb.h"

namespace rota::noded {

struct StepPlan {
  wire::JobLaunch job;
  wire::JobStepRecord step;
  int node_index = 0;               // This node's place among the step's nodes
  uint32_t local_tasks = 0;         // Tasks here
  std::vector<uint32_t> task_ids;   // Their global ids, by local id (srun -m)
  uint32_t cpus_per_task = 1;       // At least 1
  std::vector<uint32_t> job_gpus;   // The job's GPUs here (node indices), sorted
  std::vector<uint32_t> step_gpus;  // The step's GPUs here (all the job's when it holds none)
  std::vector<uint32_t> step_cpus;  // The step's CPUs here (all the job's when it holds none)
  CpuBindSpec cpu_bind;
  TaskCpuBinding cpu_binding;
  TaskMemBinding mem_binding;  // srun --mem-bind
  GpuBindSpec gpu_bind;
  TaskGpuBinding gpu_binding;
  bool devices_constrained = false;  // ConstrainDevices under a cage that enforces
  // Tasks confined to their own GPUs: bound to some, or of a step that holds
  // some of the job's apart from its other steps.
  bool confine_gpus = false;
};

// `known`: the controller's answer for the step, with its job (ListSteps).
// Errors: the caller is neither the job's owner nor `privileged`, the step
// has no tasks on this node or the job nothing, a binding that cannot be met.
Result<StepPlan> PlanStep(const NodeContext& node, const wire::ListStepsResponse& known,
                          uint32_t node_index_in_step, uint32_t caller_uid, bool privileged);

}  // namespace rota::noded
