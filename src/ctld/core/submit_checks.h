#pragma once

// Checks on a submitted job's own fields that need nothing but the request,
// the caller and `now`: what an ordinary user may ask for (a negative nice),
// times that are already past (--deadline), and how much a user may park in
// the controller (script and environment sizes). Errors carry Slurm's
// messages. Pure: no clock, no I/O.

#include <cstdint>

#include "common/status.h"
#include "rota.pb.h"

namespace rota::ctld {

// Slurm's bound on |nice|: its NICE_OFFSET less a safety margin.
inline constexpr int64_t kMaxNice = 2147483645;

// The sum of the "NAME=value" strings of `spec`'s environment.
uint64_t EnvironmentBytes(const wire::JobSpec& spec);

// The script may hold at most `max_script_size` bytes
// (SchedulerParameters=max_script_size) and the environment as many.
Status CheckSubmitSizes(uint64_t script_bytes, uint64_t environment_bytes,
                        uint64_t max_script_size);

// A negative nice only from a privileged caller (root, SlurmUser, Operator,
// Administrator); a deadline not already past at `now`.
Status CheckSubmitFields(const wire::JobSpec& spec, bool privileged, int64_t now);

}  // namespace rota::ctld
