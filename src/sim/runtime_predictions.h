#pragma once

// Runtime predictions made outside the simulator (a site's own model, or a
// bound computed with hindsight), for `rota-sim --predictions F`: the backfill
// planner plans each listed job with its prediction instead of the
// controller's built-in predictor, so any predictor can be measured on a trace
// without changing the controller. One "JOBID SECONDS" pair a line (the
// trace's job number), '#' starts a comment.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/status.h"

namespace rota::sim {

using RuntimePredictions = std::unordered_map<uint64_t, int64_t>;  // Trace job id -> seconds

// Errors name the line ("F:LINE: ..."): a line that is not two numbers, a
// prediction that is not positive, a job listed twice.
Result<RuntimePredictions> ParseRuntimePredictions(std::string_view text, const std::string& name);
Result<RuntimePredictions> ReadRuntimePredictions(const std::string& path);

}  // namespace rota::sim
