#pragma once

// Turns what a user asked for (JobSpec: --nodes, --ntasks, --mem-per-gpu,
// --gres, --gpus-per-task, --constraint ...) into the selection's Request,
// and (CheckCanEverRun) refuses at submit time, with Slurm's words, what can
// never run.

#include <string>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "rota.pb.h"
#include "sched/cluster_model.h"
#include "sched/request.h"

namespace rota::ctld {

struct JobShape {
  sched::Request request;
  uint32_t nodes = 1;  // The node count it needs, or its best estimate when -N is free
  uint32_t num_tasks = 1;
  uint32_t total_cpus = 0;  // Estimates shown while pending
  uint32_t total_gpus = 0;
  int64_t time_limit_s = -1;     // Effective limit; -1 UNLIMITED
  int64_t switches_wait_s = -1;  // --switches=N@T: T; -1 waits for ever
  std::string partition_reason;  // PartitionTimeLimit / PartitionConfig / ... or ""
};

// The messages users see (sbatch prints "Batch job submission failed: <msg>").
inline constexpr char kNodeConfigNotAvailable[] = "Requested node configuration is not available";
inline constexpr char kInvalidGres[] = "Invalid generic resource (gres) specification";
inline constexpr char kInvalidFeature[] = "Invalid feature specification";
inline constexpr char kInvalidNodeName[] = "Invalid node name specified";
inline constexpr char kMemoryNotSatisfiable[] = "Memory specification can not be satisfied";

// REQUIRES: `partition` belongs to `config` and `model` was built from it.
Result<JobShape> ShapeJob(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                          const conf::ClusterConfig& config, const sched::ClusterModel& model);

// True when the job named (-w) every node it needs: no other node can hold
// any of it, and its misfit holds back no partition (sched/main_pass.h).
inline bool NamesAllItsNodes(const JobShape& shape) {
  const std::vector<uint32_t>& required = shape.request.required_nodes;
  return !required.empty() && required.size() >= shape.nodes;
}

// Refuses, with Slurm's words, a job that could not run in `partition` even
// with every node free. The message may hold several lines; the last is the
// reason.
Status CheckCanEverRun(const JobShape& shape, const conf::PartitionConfig& partition,
                       const sched::ClusterModel& model);

// The partition's nodes as indices into `model`, in configuration order.
std::vector<uint32_t> PartitionNodeIndices(const conf::PartitionConfig& partition,
                                           const sched::ClusterModel& model);

}  // namespace rota::ctld
