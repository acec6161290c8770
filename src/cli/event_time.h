#pragma once

// Points in time as sbatch --begin/--deadline and scontrol take them.

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace rota::cli {

// Slurm's time-of-event formats (--begin, --deadline), as Unix seconds:
//   now[{+|-}N[seconds|minutes|hours|days|weeks]]   (N alone is seconds)
//   HH:MM[:SS][AM|PM]          the next such time of day
//   midnight noon elevenses fika teatime today tomorrow
//   YYYY-MM-DD[THH:MM[:SS]]    MM/DD[/YY]
// Local time, as Slurm. InvalidArgument (message: the input) otherwise.
Result<int64_t> ParseEventTime(std::string_view text, int64_t now);

}  // namespace rota::cli
