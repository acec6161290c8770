#pragma once

// What slurm.conf adds to a job's request at submission, as Slurm does before
// the job is queued, so that every later reader (selection, accounting,
// scontrol show job, the node's cage) sees one request: DefCpuPerGPU and
// DefMemPerGPU for GPU jobs that did not say, MaxMemPerCPU turning too much
// memory per CPU into more CPUs per task. And EnforcePartLimits:
// whether a job beyond its partition's limits is refused rather than left
// pending. Pure.

#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::ctld {

// Whether `spec` asks for GPUs by any of --gres=gpu, --gpus,
// --gpus-per-node/-task/-socket, --ntasks-per-gpu.
bool AsksForGpus(const wire::JobSpec& spec);

// Fills in the partition's (else the cluster's) defaults and applies
// MaxMemPerCPU:
// - DefCpuPerGPU: a GPU job without --cpus-per-task or --cpus-per-gpu gets
//   that many CPUs per GPU.
// - DefMemPerGPU: a GPU job without --mem, --mem-per-cpu or --mem-per-gpu
//   gets that much memory per GPU, unless the partition sets its own
//   DefMemPerCPU (the partition's default wins over the cluster's).
// - MaxMemPerCPU: --mem-per-cpu above it multiplies --cpus-per-task by
//   ceil(asked / max) and divides the memory per CPU by the same.
// Values of 0 mean "not set", as in Slurm.
void ApplyJobDefaults(const conf::PartitionConfig& partition, const conf::ClusterConfig& config,
                      wire::JobSpec& spec);

// EnforcePartLimits=ANY or ALL: the error (Slurm's words) refusing a job held
// by `partition_reason` (JobShape's PartitionTimeLimit, PartitionNodeLimit,
// PartitionConfig); OK under NO or when there is no such reason.
Status EnforcePartitionLimits(const conf::ClusterConfig& config,
                              const std::string& partition_reason);

}  // namespace rota::ctld
