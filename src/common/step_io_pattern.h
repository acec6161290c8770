#pragma once

// srun's -o/-e/-i file names: Slurm's replacement symbols expanded for one
// task of a job step. Pure; used by srun (does a name differ per task?) and by
// the node daemons (the name of each task's file).

#include <cstdint>
#include <string>
#include <string_view>

namespace rota {

struct StepIoFields {
  uint32_t job_id = 0;
  uint32_t step_id = 0;
  uint32_t task_id = 0;     // %t: the task's global id
  uint32_t node_index = 0;  // %n: the node's place in the step
  std::string node;         // %N
  std::string user;         // %u
  std::string job_name;     // %x
  // The job's place in an array (%A, %a); array_job_id 0: not an array task.
  uint32_t array_job_id = 0;
  uint32_t array_task_id = 0;
};

// Expands %t, %n, %N, %j (job id), %J (job.step), %s (step id), %u, %x, %A
// (the array's job id; the job id outside an array), %a (the array task id;
// 4294967294 outside an array, as Slurm prints it), %%. A width between '%'
// and a numeric symbol zero-pads it (%3t -> 007). Unknown symbols stay as
// written.
std::string ExpandStepIoPattern(std::string_view pattern, const StepIoFields& fields);

// Whether the name differs between the tasks of one step: it holds %t, %n or %N.
bool StepIoPatternPerTask(std::string_view pattern);

}  // namespace rota
