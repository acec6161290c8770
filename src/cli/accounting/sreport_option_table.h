#pragma once

// sreport's options as getopt_long takes them (sreport_main.cc): they end at
// the first command word ('+'), as sreport reads them. docs/options.md has a
// row for each ("The other commands"), and CommandOptionTablesTest checks that
// the two agree.

#include <getopt.h>

#include <span>

#include "cli/refused_option.h"

namespace rota::cli::sreport_options {

enum : int { kNoOp = 1000 };
inline constexpr option kLong[] = {
    {"all_clusters", no_argument, nullptr, 'a'},
    {"noheader", no_argument, nullptr, 'n'},
    {"parsable", no_argument, nullptr, 'p'},
    {"parsable2", no_argument, nullptr, 'P'},
    {"tres", required_argument, nullptr, 'T'},
    {"cluster", required_argument, nullptr, 'M'},
    {"quiet", no_argument, nullptr, 'Q'},
    {"verbose", no_argument, nullptr, 'v'},
    {"help", no_argument, nullptr, 'h'},
    {"usage", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {"local", no_argument, nullptr, kNoOp},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "+anpPt:T:M:QvhV";
inline constexpr std::span<const RefusedOption> kRefused{};  // None

}  // namespace rota::cli::sreport_options
