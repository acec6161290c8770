#pragma once

// Which NUMA nodes each task of a step binds its memory to (srun --mem-bind,
// common/mem_bind_spec.h), and what the tasks are told of it. Pure: the
// host's NUMA layout and the tasks' CPUs in, one node list per local task
// out; the task sets its memory policy to it (set_mempolicy: MPOL_BIND, or
// MPOL_PREFERRED on the first with prefer) just before it execs.
//
// rank gives local task i the host's i-th NUMA node (wrapping); local the
// nodes of the CPUs the task is bound to (else the step's); map_mem and
// mask_mem the nodes they name, which the host must have.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/mem_bind_spec.h"
#include "common/status.h"

namespace rota::noded {

struct TaskMemRequest {
  uint32_t local_tasks = 0;
  std::vector<std::vector<uint32_t>> task_cpus;   // Each task's bound CPUs (empty: not bound)
  std::vector<uint32_t> step_cpus;                // The step's CPUs here
  std::map<uint32_t, uint32_t> numa_node_of_cpu;  // The host's layout (ReadNumaLayout)
};

struct TaskMemBinding {
  MemBindSpec::Kind kind = MemBindSpec::kNone;
  bool verbose = false;
  bool prefer = false;
  std::vector<std::vector<uint32_t>> task_nodes;  // Per local task, ascending; empty: none
  bool bound() const { return kind != MemBindSpec::kNone; }
};

// Errors: a map_mem or mask_mem entry names a NUMA node the host lacks.
Result<TaskMemBinding> BindTaskMemory(const MemBindSpec& spec, const TaskMemRequest& request);

// The NUMA node of each CPU, from sysfs's node directory
// (/sys/devices/system/node: nodeN/cpulist). Empty when there is none.
std::map<uint32_t, uint32_t> ReadNumaLayout(const std::filesystem::path& node_dir);

// What every task of the node is told: SLURM_MEM_BIND ("quiet,map_mem:0,1"),
// SLURM_MEM_BIND_TYPE ("map_mem:", "mask_mem:", "rank", "local" or "none"),
// SLURM_MEM_BIND_LIST (masks of each task's nodes, "0x1,0x2"),
// SLURM_MEM_BIND_PREFER ("prefer" or empty), SLURM_MEM_BIND_SORT (empty) and
// SLURM_MEM_BIND_VERBOSE ("quiet" or "verbose").
std::vector<std::pair<std::string, std::string>> MemBindEnvironment(const TaskMemBinding& binding);

// The line --mem-bind=verbose prints for a task:
// "mem-bind=MASK - node1, task  0  0 [4242]: mask 0x1 set".
std::string DescribeTaskMemory(const TaskMemBinding& binding, const std::string& node,
                               uint32_t global_task, uint32_t local_task, pid_t pid);

}  // namespace rota::noded
