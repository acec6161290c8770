#pragma once

// PriorityUsageResetPeriod: the calendar moments at which fair-share usage
// (and the GrpTRESMins usage kept with it) goes back to 0. Pure: `now` is an
// argument. Boundaries are midnight UTC: the scheduling core knows no time
// zone (Slurm uses the controller's local midnight).

#include <cstdint>
#include <string_view>

namespace rota::ctld {

// The latest reset boundary at or before `now` (seconds since the epoch) for
// `period`: DAILY, midnight; WEEKLY, Sunday midnight; MONTHLY, the 1st;
// QUARTERLY, the 1st of January, April, July or October; YEARLY, the 1st of
// January. 0 for NONE and NOW (NOW clears once, when the controller reads
// its configuration, not on a calendar).
int64_t LastUsageReset(std::string_view period, int64_t now);

}  // namespace rota::ctld
