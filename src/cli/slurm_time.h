#pragma once

// Timestamps as Slurm's commands print them: local time, ISO 8601 without a
// zone ("2026-11-29T07:14:01").

#include <cstdint>
#include <string>

namespace rota::cli {

// `unset` is printed for 0 ("Unknown", "N/A", "None" depending on the field).
std::string FormatSlurmTime(int64_t unix_secs, const char* unset = "Unknown");

}  // namespace rota::cli
