#pragma once

// The scheduling policy a replay runs under. Every policy is the controller's
// own code: the main pass, and for the backfill policies the controller's
// backfill pass (SchedulerType=sched/backfill) with parameters chosen here.

#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::sim {

enum class Policy {
  kFcfs,          // The main pass only: priority order, the first misfit blocks its partition
  kEasy,          // Backfill with one reservation per partition (the first blocked job)
  kConservative,  // Backfill with a reservation for every waiting job
  kSlurm,         // Backfill with the configuration's own SchedulerParameters
};

// "fcfs", "easy", "conservative", "slurm"; anything else is refused.
Result<Policy> ParsePolicy(const std::string& name);

// Sets `config`'s SchedulerType and SchedulerParameters for `policy`. EASY
// and conservative are the textbook algorithms: a pass at every event
// (bf_interval=0), one-second resolution, no window and no test limits, so
// that they can be compared with the literature; kSlurm keeps the file's.
void ApplyPolicy(Policy policy, conf::ClusterConfig& config);

}  // namespace rota::sim
