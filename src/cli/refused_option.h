#pragma once

// Options of Slurm's commands that a Rota command takes only to refuse them
// with the reason (docs/options.md, "The other commands"), rather than with
// getopt's "unrecognized option": a script then learns what to change.

#include <getopt.h>

#include <span>
#include <string_view>

namespace rota::cli {

// getopt_long's value for a refused option that has no letter.
inline constexpr int kRefusedOption = 4000;

struct RefusedOption {
  const char* name;  // The long name
  char letter;       // 0: none
  const char* why;
};

// When getopt_long returned `c` (a letter, or kRefusedOption with
// `long_index` into `long_options`) for one of `refused`: prints
// "COMMAND: error: --NAME: WHY" on stderr and returns true.
bool ReportRefusedOption(std::string_view command, int c, const option* long_options,
                         int long_index, std::span<const RefusedOption> refused);

}  // namespace rota::cli
