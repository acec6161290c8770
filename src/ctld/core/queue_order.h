#pragma once

// The order in which both scheduling passes consider pending jobs, as Slurm's:
// partitions of higher PriorityTier first (their jobs are served before any
// job of a lower tier, whatever its priority), then higher priority, then
// earlier submission, then lower job id.

#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::ctld {

// Sorts `queue` in that order (stable). Jobs whose partition is unknown sort
// as the lowest tier; the passes give them their reason.
void SortQueue(std::vector<const wire::JobRecord*>& queue, const conf::ClusterConfig& config);

}  // namespace rota::ctld
