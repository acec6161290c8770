#pragma once

// What slurm.conf adds to, or changes in, a job's request:
// - DefCpuPerGPU and DefMemPerGPU, for GPU jobs that gave no CPU or memory
//   option. As in Slurm they stay defaults, apart from what the job asked
//   for (scontrol show job does not show them as the job's): the selection
//   (ShapeJob) and accounting's requested memory read them from here.
// - MaxMemPerCPU, which Slurm applies to the request itself at submission:
//   too much memory per CPU becomes more CPUs per task.
// - EnforcePartLimits: whether a job beyond its partition's limits is
//   refused rather than left pending.
// Pure.

#include <string>

#include "common/memory_size.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::ctld {

// Whether `spec` asks for GPUs by any of --gres=gpu, --gpus,
// --gpus-per-node/-task/-socket, --ntasks-per-gpu.
bool AsksForGpus(const wire::JobSpec& spec);

// The defaults that apply to `spec` in `partition` (its own values, else
// the cluster's; 0: none):
// - cpus_per_gpu (DefCpuPerGPU): a GPU job without --cpus-per-task or
//   --cpus-per-gpu gets that many CPUs per GPU;
// - mem_per_gpu (DefMemPerGPU): a GPU job without --mem, --mem-per-cpu or
//   --mem-per-gpu gets that much memory per GPU, unless the partition sets
//   its own DefMemPerCPU (the partition's default wins over the cluster's).
struct GpuDefaults {
  uint32_t cpus_per_gpu = 0;
  MemoryMb mem_per_gpu = 0;
};
GpuDefaults GpuDefaultsFor(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                           const conf::ClusterConfig& config);

// MaxMemPerCPU (the partition's, else the cluster's): --mem-per-cpu above it
// multiplies --cpus-per-task by ceil(asked / max) and divides the memory per
// CPU by the same, at submission, as Slurm does.
void ApplyMaxMemPerCpu(const conf::PartitionConfig& partition, const conf::ClusterConfig& config,
                       wire::JobSpec& spec);

// EnforcePartLimits=ANY or ALL: the error (Slurm's words) refusing a job held
// by `partition_reason` (JobShape's PartitionTimeLimit, PartitionNodeLimit,
// PartitionConfig); OK under NO or when there is no such reason.
Status EnforcePartitionLimits(const conf::ClusterConfig& config,
                              const std::string& partition_reason);

}  // namespace rota::ctld
