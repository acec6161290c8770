#pragma once

// The environment variables Slurm derives from what a job asked for and from
// its place in an array: what sbatch's and salloc's output environment holds,
// and what srun inside the job reads back as the defaults of its options
// (SLURM_GPU_BIND, SLURM_GPUS_PER_TASK, ...). Pure: a record in, NAME/value
// pairs out. The allocation's own variables (nodes, CPUs, GPU ids) are the
// node daemon's (noded/job_environment.h).

#include <string>
#include <utility>
#include <vector>

#include "rota.pb.h"

namespace rota::model {

using EnvVariables = std::vector<std::pair<std::string, std::string>>;

// One variable per option the job was given, and none for an option it was
// not (Slurm leaves SLURM_GPUS_PER_TASK unset without --gpus-per-task). Values
// as Slurm writes them: GPU counts as typed ("a100:2"), memory in MB, binding
// and frequency as given. --mem=0 ("all the node's memory") sets nothing: the
// amount is the allocation's, known where the job runs.
EnvVariables RequestVariables(const wire::JobSpec& spec);

// SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID and, from the job's --array,
// SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP (the step of "1-9:2"; 1 when
// the expression gives none). Empty when the job is not an array task.
EnvVariables ArrayVariables(const wire::JobLaunch& job);

// Per-node counts in Slurm's compressed form: "8(x2),2" for 8, 8, 2.
std::string FormatPerNodeCounts(const std::vector<uint32_t>& counts);

// What a started job holds on each of its nodes, in node order: CPUs, and the
// tasks of its layout. Without a task count asked (-n or --ntasks-per-node)
// a node has as many tasks as its CPUs hold (Slurm's layout of a batch job
// or an allocation), not the one per node the allocation counted.
struct PerNodeLayout {
  std::vector<uint32_t> cpus;
  std::vector<uint32_t> tasks;  // Empty when the record has no per-node allocation
};
PerNodeLayout AllocationLayout(const wire::JobLaunch& job);

// SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE of `job` (the second only
// when the record has its per-node allocation).
EnvVariables LayoutVariables(const wire::JobLaunch& job);

}  // namespace rota::model
