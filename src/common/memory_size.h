#pragma once

// Memory sizes with Slurm's suffix rules. Rota counts memory in MiB ("MB" in
// Slurm's words) everywhere, as Slurm does.
//
//   "4096"  -> 4096 MB (a bare number is megabytes)
//   "512K"  -> 1 MB    (kilobytes round up to whole megabytes)
//   "16G"   -> 16384 MB
//   "2T"    -> 2097152 MB
// Suffixes K, M, G, T (and P, which FormatMemoryMb prints) are case-insensitive;
// a trailing "B" is not accepted here (configuration values); the commands'
// options take it, see ParseMemoryOption.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota {

using MemoryMb = uint64_t;

Result<MemoryMb> ParseMemoryMb(std::string_view text);

// What the commands take for --mem, --mem-per-cpu and --mem-per-gpu:
// ParseMemoryMb's forms, plus a "B" after the unit letter ("16GB", "500MB",
// "512KB"), as Slurm's commands read only the letter after the number. A
// size Slurm's signed 64-bit count of megabytes cannot hold is refused
// ("too large").
Result<MemoryMb> ParseMemoryOption(std::string_view text);

// Prints with the largest unit that divides exactly: 16384 -> "16G", 1000 -> "1000M",
// 0 -> "0". This is how Slurm prints memory inside TRES strings (mem=16G).
std::string FormatMemoryMb(MemoryMb mb);

}  // namespace rota
