#pragma once

// Which of the job's GPUs on a node each task of a step gets (srun
// --gpus-per-task and --gpu-bind). Pure: the node's share of the job and the
// request in, one GPU list per local task out.
//
// --gpu-bind values: none (every task sees all the job's GPUs here), closest
// (the GPUs whose CPU affinity meets the task's CPUs, preferred in that order),
// single:N (one GPU per task, N tasks sharing each), map_gpu:i,j,... (task k
// gets GPU list[k % size]), mask_gpu:0x..,... (task k gets the bits of
// list[k % size]); each may be prefixed "verbose,". Without --gpu-bind, a task
// of a step with --gpus-per-task=G gets its own G GPUs, in order; without
// either it sees all the job's GPUs. GPU numbers in map_gpu and mask_gpu are the
// node's GPU indices (gres.conf order) and must belong to the job.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::noded {

struct GpuBindSpec {
  enum class Kind { kDefault, kNone, kClosest, kSingle, kMapGpu, kMaskGpu };
  Kind kind = Kind::kDefault;
  bool verbose = false;
  uint32_t tasks_per_gpu = 0;    // single:N
  std::vector<uint64_t> values;  // map_gpu indices or mask_gpu masks
};

// Errors: kInvalidArgument naming what is wrong ("invalid --gpu-bind ...").
Result<GpuBindSpec> ParseGpuBind(std::string_view text);

// One GPU of the job on this node.
struct JobGpu {
  uint32_t index = 0;          // The node's GPU index
  std::vector<uint32_t> cpus;  // CPUs close to it (empty: unknown)
};

struct TaskGpuRequest {
  std::vector<JobGpu> gpus;  // The job's GPUs here, ascending index
  uint32_t local_tasks = 0;
  uint32_t gpus_per_task = 0;
  // The CPUs of each local task (for closest); may be empty.
  std::vector<std::vector<uint32_t>> task_cpus;
};

struct TaskGpuBinding {
  // Per local task: its GPUs' node indices, ascending.
  std::vector<std::vector<uint32_t>> task_gpus;
  // The tasks got GPUs of their own: each may be confined to them (devices
  // cgroup per task). False when every task sees all the job's GPUs.
  bool per_task = false;
};

// The CPU ids of gres.conf Cores= (core indices): core c holds CPUs
// c * threads_per_core .. + threads_per_core - 1, as NodeAlloc.cpu_ids counts
// them; JobGpu.cpus wants CPUs.
std::vector<uint32_t> CpusOfCores(const std::vector<uint32_t>& cores, uint32_t threads_per_core);

// Errors: kInvalidArgument when the binding asks for GPUs the job does not
// hold here, or more than it holds.
Result<TaskGpuBinding> BindTaskGpus(const GpuBindSpec& spec, const TaskGpuRequest& request);

// The line `--gpu-bind=verbose,...` prints for a task:
// "gpu-bind: usable_gres=0x3; task 1; global_list=0,1" (mask and list of node indices).
std::string DescribeTaskGpus(uint32_t task, const std::vector<uint32_t>& gpus);

}  // namespace rota::noded
