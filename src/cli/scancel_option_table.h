#pragma once

// scancel's options as getopt_long takes them (scancel_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include <span>

#include "cli/refused_option.h"

namespace rota::cli::scancel_options {

enum : int { kNoOp = 1100, kMe, kWckey };
inline constexpr option kLong[] = {
    {"batch", no_argument, nullptr, 'b'},
    {"name", required_argument, nullptr, 'n'},
    {"jobname", required_argument, nullptr, 'n'},
    {"partition", required_argument, nullptr, 'p'},
    {"signal", required_argument, nullptr, 's'},
    {"state", required_argument, nullptr, 't'},
    {"user", required_argument, nullptr, 'u'},
    {"quiet", no_argument, nullptr, 'Q'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    {"verbose", no_argument, nullptr, 'v'},
    {"me", no_argument, nullptr, kMe},
    {"ctld", no_argument, nullptr, kNoOp},
    {"sibling", required_argument, nullptr, kNoOp},
    {"hurry", no_argument, nullptr, 'H'},
    {"usage", no_argument, nullptr, 'h'},
    {"account", required_argument, nullptr, 'A'},
    {"qos", required_argument, nullptr, 'q'},
    {"reservation", required_argument, nullptr, 'R'},
    {"nodelist", required_argument, nullptr, 'w'},
    {"wckey", required_argument, nullptr, kWckey},
    {"full", no_argument, nullptr, 'f'},
    {"interactive", no_argument, nullptr, 'i'},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "bn:p:s:t:u:QhvVM:HA:q:R:w:fi";
// None: every option of Slurm's scancel is taken.
inline constexpr std::span<const RefusedOption> kRefused{};

}  // namespace rota::cli::scancel_options
