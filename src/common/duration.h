#pragma once

// Durations in Slurm's time formats, both directions.
//
// Accepted (time limits, --time, MaxTime=, PreemptExemptTime=, ...):
//   "MM"  "MM:SS"  "HH:MM:SS"  "D-HH"  "D-HH:MM"  "D-HH:MM:SS"
//   "INFINITE" / "UNLIMITED" (any case) -> kInfiniteDuration
// A bare number is minutes, as in Slurm. Fields are unsigned decimals.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota {

// Seconds. kInfiniteDuration stands for INFINITE/UNLIMITED.
using DurationSecs = int64_t;
inline constexpr DurationSecs kInfiniteDuration = INT64_MAX;

// Parses a Slurm time string into seconds. InvalidArgument quoting the input otherwise.
Result<DurationSecs> ParseDuration(std::string_view text);

// What the commands take for --time and --time-min: ParseDuration's forms,
// plus "-1" (kInfiniteDuration) and a day count alone, "D-" (D days), as
// Slurm's commands read them, rounded up to whole minutes (Slurm keeps job
// time limits in minutes: "0:30" is one minute). Configuration files keep
// ParseDuration.
Result<DurationSecs> ParseTimeOption(std::string_view text);

// `secs` rounded up to a whole number of minutes; kInfiniteDuration and
// negative values as they are.
DurationSecs RoundUpToMinutes(DurationSecs secs);

// squeue's TIME and TIME_LIMIT columns: "0:00", "5:07", "1:02:03", "2-00:00:00";
// kInfiniteDuration prints "UNLIMITED". Negative values print as "INVALID".
std::string FormatDurationSqueue(DurationSecs secs);

// scontrol's RunTime=/TimeLimit=: always two-digit fields, "00:00:11",
// "01:00:00", "2-00:00:00"; kInfiniteDuration prints "UNLIMITED".
std::string FormatDurationScontrol(DurationSecs secs);

}  // namespace rota
