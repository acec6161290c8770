#pragma once

// The scheduling policy a replay runs under. Only the controller's own main
// pass exists today; the backfill policies are named so that asking for one
// gets a clear answer instead of a silent FCFS run.

#include <string>

#include "common/status.h"

namespace rota::sim {

enum class Policy {
  kFcfs,  // The controller's main pass: priority order, the first misfit blocks its partition
};

// "fcfs" -> kFcfs. "easy", "conservative" and "slurm" are refused, saying
// that backfill comes with the backfill issue; anything else is unknown.
Result<Policy> ParsePolicy(const std::string& name);

}  // namespace rota::sim
