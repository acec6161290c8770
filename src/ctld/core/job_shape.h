#pragma once

// Turns what a user asked for (JobSpec: --nodes, --ntasks, --mem-per-gpu,
// --gres, --gpus-per-task, --constraint ...) into what each node must hold,
// and refuses at submit time, with Slurm's words, what can never run.

#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "rota.pb.h"
#include "sched/first_fit.h"

namespace rota::ctld {

struct JobShape {
  sched::ResourceRequest request;  // Per node; request.nodes is the node count
  uint32_t num_tasks = 1;
  uint32_t total_cpus = 0;
  uint32_t total_gpus = 0;
  int64_t time_limit_s = -1;     // Effective limit; -1 UNLIMITED
  std::string partition_reason;  // PartitionTimeLimit / PartitionConfig / ... or ""
};

// The messages users see (sbatch prints "Batch job submission failed: <msg>").
inline constexpr char kNodeConfigNotAvailable[] = "Requested node configuration is not available";
inline constexpr char kInvalidGres[] = "Invalid generic resource (gres) specification";
inline constexpr char kInvalidFeature[] = "Invalid feature specification";
inline constexpr char kInvalidNodeName[] = "Invalid node name specified";
inline constexpr char kMemoryNotSatisfiable[] = "Memory specification can not be satisfied";

// REQUIRES: `partition` belongs to `config`. An error message may hold
// several lines; the last is the reason for the refusal.
Result<JobShape> ShapeJob(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                          const conf::ClusterConfig& config);

// The configured (empty) resources of `node`, as first-fit candidates.
sched::NodeResources ConfiguredResources(const conf::NodeConfig& node);

}  // namespace rota::ctld
