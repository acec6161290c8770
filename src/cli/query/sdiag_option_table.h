#pragma once

// sdiag's options as getopt_long takes them (sdiag_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sdiag_options {

inline constexpr option kLong[] = {
    {"all", no_argument, nullptr, 'a'},
    {"reset", no_argument, nullptr, 'r'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {"cluster", required_argument, nullptr, 'M'},
    {"clusters", required_argument, nullptr, 'M'},
    {"usage", no_argument, nullptr, 'h'},
    {"sort-by-id", no_argument, nullptr, 'i'},
    {"sort-by-time", no_argument, nullptr, 't'},
    {"sort-by-time2", no_argument, nullptr, 'T'},
    {"json", no_argument, nullptr, kRefusedOption},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "arhVM:itT";
inline constexpr RefusedOption kRefused[] = {
    {"json", 0, "JSON output is not supported by sdiag yet"},
    {"yaml", 0, "YAML output is not supported"},
};

}  // namespace rota::cli::sdiag_options
