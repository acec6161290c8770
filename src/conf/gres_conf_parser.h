#pragma once

// Parses gres.conf against the nodes and GresTypes of slurm.conf.

#include <vector>

#include "conf/cluster_config.h"
#include "conf/config_reader.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// REQUIRES: config.nodes and config.settings are filled (slurm.conf parsed).
GresConf ParseGresConf(const std::vector<ConfigLine>& lines, const ClusterConfig& config,
                       Diagnostics& diags);

}  // namespace rota::conf
