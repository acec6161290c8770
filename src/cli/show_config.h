#pragma once

// `scontrol show config`: every key Slurm prints, in its order and layout
// ("Key" padded to 23 columns, " = ", value with its unit), the value from
// slurm.conf when the site sets it and Slurm's default otherwise, then the
// cgroup.conf section and the controller's status line.

#include <cstdint>
#include <string>

#include "conf/cluster_config.h"

namespace rota::cli {

struct ShowConfigContext {
  int64_t now = 0;              // "Configuration data as of <now>"
  bool controller_up = false;   // Answered a ping
  std::string controller_host;  // As named by SlurmctldHost
};

std::string FormatShowConfig(const conf::ClusterConfig& config, const ShowConfigContext& context);

}  // namespace rota::cli
