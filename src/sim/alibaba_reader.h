#pragma once

// Alibaba's GPU cluster trace (cluster-trace-gpu-v2023, "openb"): a node list
// (sn,cpu_milli,memory_mib,gpu,model) and a pod list (name,cpu_milli,
// memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
// deletion_time,scheduled_time), times in seconds from the trace's origin.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/trace_job.h"

namespace rota::sim {

struct AlibabaNode {
  std::string name;
  uint32_t cpus = 0;       // cpu_milli / 1000
  uint64_t memory_mb = 0;  // MiB as the trace gives it
  uint32_t gpus = 0;
  std::string model;  // Lower-cased GPU model ("v100m16"), the GRES type
};

Result<std::vector<AlibabaNode>> ParseAlibabaNodes(std::string_view csv);

// The nodes as a slurm.conf (one partition "gpu" over all of them, CPUs and
// memory tracked) and its gres.conf.
std::string AlibabaSlurmConf(const std::vector<AlibabaNode>& nodes);
std::string AlibabaGresConf(const std::vector<AlibabaNode>& nodes);

// Pods become one-task jobs: cpu_milli rounded up to whole CPUs per task,
// memory_mib as --mem, num_gpu GPUs. Whole GPUs only: a fractional share
// (gpu_milli < 1000) takes a whole GPU, counted in stats.rounded_gpus. A
// gpu_spec naming one model becomes a typed request; several models ("A|B")
// cannot be said in --gres and mean any model. Runtime is deletion_time -
// scheduled_time; pods never scheduled (Pending) or without a positive
// runtime are skipped (skipped_runtime). There are no user estimates: the
// requested time is left unknown, so user estimates equal the runtime.
Result<Trace> ParseAlibabaPods(std::string_view csv, uint64_t max_jobs = 0);

}  // namespace rota::sim
