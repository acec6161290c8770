#pragma once
// Timestamps as squeue/sinfo print them. Pure functions of their arguments:
// the caller passes the moment and the local time zone's offset from UTC, so
// output never depends on the machine running the tests.
#include <cstdint>
#include <string>

namespace rota::cli::format {

// "2026-11-29T08:14:01" (Slurm's default, ISO 8601 without zone) for the Unix
// time `t` shifted by `utc_offset_s` seconds.
std::string FormatIsoTime(int64_t t, int64_t utc_offset_s);

// "Sun Nov 29 07:14:15 2026" as ctime(3) prints it, without the newline: the
// first line of `squeue -l` and `sinfo -l`. The day of the month is padded
// with a blank ("Sun Nov  1 ...").
std::string FormatCtime(int64_t t, int64_t utc_offset_s);

}  // namespace rota::cli::format
