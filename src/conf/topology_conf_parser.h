#pragma once

// Parses and validates topology.conf (topology/tree) against slurm.conf's nodes.

#include <vector>

#include "conf/cluster_config.h"
#include "conf/config_reader.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// The tree must be sound: switch names unique, every Switches= name defined,
// no cycles, every Nodes= name a node of slurm.conf, and every node under
// exactly one leaf switch.
// REQUIRES: config.nodes is filled.
Topology ParseTopologyConf(const std::vector<ConfigLine>& lines, const ClusterConfig& config,
                           const std::string& topology_path, Diagnostics& diags);

}  // namespace rota::conf
