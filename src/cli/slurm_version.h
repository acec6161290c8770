#pragma once

// The Slurm release whose commands, options and outputs Rota's commands follow.
// One place for it: `-V`/`--version` of every command, `scontrol version`,
// SLURM_VERSION in `scontrol show config` and the "meta" block of `--json`.

#include <string_view>

namespace rota::cli {

inline constexpr int kSlurmVersionMajor = 22;
inline constexpr int kSlurmVersionMinor = 5;
inline constexpr int kSlurmVersionMicro = 8;
inline constexpr std::string_view kSlurmVersion = "22.05.8";

// What `-V`/`--version` prints on stdout, as Slurm's commands print it.
inline constexpr std::string_view kSlurmVersionLine = "slurm 22.05.8\n";

}  // namespace rota::cli
