#pragma once

// Loads a cluster's configuration: slurm.conf and, beside it, gres.conf,
// cgroup.conf and topology.conf (the latter read when TopologyPlugin is
// topology/tree, and then required).

#include <memory>
#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// $SLURM_CONF, or /etc/slurm/slurm.conf.
std::string DefaultSlurmConfPath();

// Which files are read. The commands read slurm.conf alone, as Slurm's do:
// gres.conf, cgroup.conf and topology.conf describe nodes for the daemons, and
// a big site's gres.conf (an entry per GPU) would make every sbatch's start
// grow with the cluster. Left out, they are empty in the result.
enum class ConfigScope {
  kCluster,        // Everything: daemons, `scontrol show config`, checks
  kSlurmConfOnly,  // slurm.conf: commands talking to a daemon
};

// Every error and warning goes to `diags`. Fails (InvalidArgument saying how
// many errors) when any error was found; warnings alone do not fail.
Result<std::shared_ptr<const ClusterConfig>> LoadClusterConfig(
    const std::string& slurm_conf_path, Diagnostics& diags,
    ConfigScope scope = ConfigScope::kCluster);

}  // namespace rota::conf
