#pragma once

// sprio's options as getopt_long takes them (sprio_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include <span>

#include "cli/refused_option.h"

namespace rota::cli::sprio_options {

inline constexpr option kLong[] = {
    {"noheader", no_argument, nullptr, 'h'},
    {"jobs", required_argument, nullptr, 'j'},
    {"long", no_argument, nullptr, 'l'},
    {"norm", no_argument, nullptr, 'n'},
    {"format", required_argument, nullptr, 'o'},
    {"partition", required_argument, nullptr, 'p'},
    {"user", required_argument, nullptr, 'u'},
    {"weights", no_argument, nullptr, 'w'},
    {"help", no_argument, nullptr, 1001},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    {"verbose", no_argument, nullptr, 'v'},
    {"usage", no_argument, nullptr, 1001},
    {"sort", required_argument, nullptr, 'S'},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "hj:lno:p:u:wVM:vS:";
// None: every option of Slurm's sprio is taken.
inline constexpr std::span<const RefusedOption> kRefused{};

}  // namespace rota::cli::sprio_options
