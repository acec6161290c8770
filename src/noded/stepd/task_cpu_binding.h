#pragma once

// Which CPUs each task of a step is bound to on a node (srun --cpu-bind,
// common/cpu_bind_spec.h), and what the tasks are told of it. Pure: the
// step's CPUs here and the request in, one CPU list per local task out; the
// node daemon sets each task's affinity to its list.
//
// Tasks take the step's CPUs as -m's sockets level deals them (cyclic, the
// default: task after task round the sockets, each task's CPUs from one
// socket while it has them; block: in order; fcyclic: each CPU from the next
// socket), cpus-per-task each; then cores widens
// a task's CPUs to every thread (of the step) of their cores, sockets to the
// step's CPUs on their sockets, threads keeps them as they are; rank gives
// task i the step's CPU i; map_cpu and mask_cpu give what they name, which
// must belong to the job here. CPU ids are the node's (core * ThreadsPerCore
// + thread, as the job's allocation numbers them).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/cpu_bind_spec.h"
#include "common/status.h"
#include "model/task_distribution.h"

namespace rota::noded {

struct TaskCpuRequest {
  std::vector<uint32_t> step_cpus;  // The step's CPUs here, ascending
  std::vector<uint32_t> job_cpus;   // The job's CPUs here (empty: not known)
  uint32_t cpus_per_task = 1;
  uint32_t local_tasks = 0;
  uint32_t threads_per_core = 1;  // The node's shape (slurm.conf)
  uint32_t cores_per_socket = 1;
  // TaskPlugin has task/affinity: tasks are bound to cores unless told otherwise.
  bool affinity_by_default = false;
  model::TaskDistribution::SocketLevel sockets = model::TaskDistribution::kSocketCyclic;
  // srun --hint, taken where --cpu-bind is not given and task/affinity
  // binds by default, as Slurm does: multithread binds each task to its
  // threads; nomultithread to threads too, one of each core (the other
  // threads of a core stay unused); compute_bound and memory_bound to cores.
  std::string hint;
  // srun --ntasks-per-core=N: tasks take at most the first N threads (of the
  // step) of each core, as nomultithread takes one.
  uint32_t ntasks_per_core = 0;
};

struct TaskCpuBinding {
  CpuBindSpec::Kind kind = CpuBindSpec::kNone;  // As applied (never kDefault)
  bool verbose = false;
  // Per local task, ascending; empty lists when kind is kNone.
  std::vector<std::vector<uint32_t>> task_cpus;
  bool bound() const { return kind != CpuBindSpec::kNone; }
};

// Errors: kInvalidArgument when map_cpu or mask_cpu names CPUs outside the
// job's here, or the step has no CPUs to bind to.
Result<TaskCpuBinding> BindTaskCpus(const CpuBindSpec& spec, const TaskCpuRequest& request);

// What every task of the node is told: SLURM_CPU_BIND ("quiet,mask_cpu:0x1,0x2"),
// SLURM_CPU_BIND_TYPE ("mask_cpu:", "map_cpu:" or "none"), SLURM_CPU_BIND_LIST
// and SLURM_CPU_BIND_VERBOSE ("quiet" or "verbose").
std::vector<std::pair<std::string, std::string>> CpuBindEnvironment(const TaskCpuBinding& binding);

// The line --cpu-bind=verbose prints for a task:
// "cpu-bind=MASK - node1, task  0  0 [4242]: mask 0x1 set".
std::string DescribeTaskCpus(const TaskCpuBinding& binding, const std::string& node,
                             uint32_t global_task, uint32_t local_task, pid_t pid,
                             const std::vector<uint32_t>& unbound_cpus);

}  // namespace rota::noded
