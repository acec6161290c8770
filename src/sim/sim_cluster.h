#pragma once

// The cluster a simulation runs on: a site's slurm.conf, or one generated
// from a node count and shape. Either way the simulator then adjusts the few
// settings that only make sense with real daemons (see ForSimulation).

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::sim {

// A homogeneous cluster: n1..nN, each with `cpus` CPUs and `gpus` GPUs, in one
// default partition "sim" without a time limit. No memory is tracked.
struct UniformCluster {
  uint32_t nodes = 0;
  uint32_t cpus_per_node = 1;
  uint32_t gpus_per_node = 0;
};

// The slurm.conf (and, with GPUs, gres.conf) text for `shape`.
std::string UniformSlurmConf(const UniformCluster& shape);
std::string UniformGresConf(const UniformCluster& shape);

// Loads configuration files written from text: the loader reads files beside
// each other, so they go to a private temporary directory removed afterwards.
// `gres_conf` may be empty (not written).
Result<std::shared_ptr<const conf::ClusterConfig>> LoadConfigText(const std::string& slurm_conf,
                                                                  const std::string& gres_conf);

// Loads a site's slurm.conf (with gres.conf etc. beside it). Errors carry the
// loader's diagnostics, one per line.
Result<std::shared_ptr<const conf::ClusterConfig>> LoadConfigFile(const std::string& path);

// The configuration as the simulator runs it. Simulated node daemons never
// heartbeat, so SlurmdTimeout is off; finished records are purged at once
// (MinJobAge=0 here, the simulator reads each job's end from its own events)
// so that every pass walks only live jobs; MaxJobCount is lifted so that a
// trace's backlog is never refused. Scheduling settings are kept as given.
std::shared_ptr<const conf::ClusterConfig> ForSimulation(const conf::ClusterConfig& config);

// Total CPUs and GPUs of the configured nodes (for utilization).
uint64_t TotalCpus(const conf::ClusterConfig& config);
uint64_t TotalGpus(const conf::ClusterConfig& config);

}  // namespace rota::sim
