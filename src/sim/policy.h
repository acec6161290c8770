#pragma once

// The scheduling policy a replay runs under. Every policy is the controller's
// own code: the main pass, and for the backfill policies the controller's
// backfill pass, handed to the core as a sched::SchedulingPolicy in place of
// the configuration's (which is left as loaded).

#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "sched/scheduling_policy.h"

namespace rota::sim {

enum class Policy {
  kFcfs,          // The main pass only: priority order, the first misfit blocks its partition
  kEasy,          // Backfill with one reservation per partition (the first blocked job)
  kConservative,  // Backfill with a reservation for every waiting job
  kSlurm,         // Backfill with the configuration's own SchedulerParameters
};

// "fcfs", "easy", "conservative", "slurm"; anything else is refused.
Result<Policy> ParsePolicy(const std::string& name);

// What the core runs under for `policy` on a cluster configured as `config`:
// EASY and conservative are sched's textbook algorithms over the file's other
// choices; kSlurm is backfill with the file's SchedulerParameters.
// `predict_runtime`: plan with the predictor's runtimes (--estimates predicted).
sched::SchedulingPolicy PolicyFor(Policy policy, const conf::ClusterConfig& config,
                                  bool predict_runtime);

}  // namespace rota::sim
