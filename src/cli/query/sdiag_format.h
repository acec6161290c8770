#pragma once

// sdiag's report, laid out as Slurm 22.05 prints it.

#include <cstdint>
#include <functional>
#include <string>

#include "diag.pb.h"

namespace rota::cli {

// The order of the RPC lines: by count (the controller's, the default), by
// id (-i), by total time (-t) or by average time (-T), largest first except
// by id.
enum class SdiagRpcOrder { kCount, kId, kTotalTime, kAverageTime };
void SortRpcCounts(wire::DiagResponse& diag, SdiagRpcOrder order);

// `utc_offset(t)`: the local time zone's offset from UTC at Unix time t, in
// seconds (cli/local_time.h in the command, 0 in tests).
std::string FormatSdiag(const wire::DiagResponse& diag,
                        const std::function<int64_t(int64_t)>& utc_offset);

}  // namespace rota::cli
