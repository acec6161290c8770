#pragma once

// The controller's pending records in the order of sched/queue_order.h, the
// order both scheduling passes consider them in.

#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"
#include "sched/queue_order.h"

namespace rota::ctld {

// Sorts `queue` in that order (stable). Jobs whose partition is unknown sort
// as the lowest tier; the passes give them their reason.
void SortQueue(std::vector<const wire::JobRecord*>& queue, const conf::ClusterConfig& config);

}  // namespace rota::ctld
