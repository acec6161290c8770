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

// Every error and warning goes to `diags`. Fails (InvalidArgument saying how
// many errors) when any error was found; warnings alone do not fail.
Result<std::shared_ptr<const ClusterConfig>> LoadClusterConfig(const std::string& slurm_conf_path,
                                                               Diagnostics& diags);

}  // namespace rota::conf
