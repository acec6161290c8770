#pragma once

// priority/multifactor in the controller: what the factors of
// sched/multifactor.h read, made from the controller's records and
// configuration (the job's fair-share and QoS priority are added by the core,
// which holds the share tree and the accounting policy).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"
#include "sched/multifactor.h"

namespace rota::ctld {

// Builders from the controller's own state.
sched::PriorityCluster MakePriorityCluster(const conf::ClusterConfig& config);
sched::PrioritySettings MakePrioritySettings(const conf::ClusterConfig& config);
sched::PriorityJob MakePriorityJob(const wire::JobRecord& job, const conf::ClusterConfig& config);
bool IsMultifactor(const conf::ClusterConfig& config);

// GPUs a job asks for, from --gpus, --gpus-per-node, --gpus-per-task or --gres.
uint64_t RequestedGpuCount(const wire::JobSpec& spec, uint32_t nodes, uint32_t tasks);

}  // namespace rota::ctld
