#pragma once

// sacctmgr's options as getopt_long takes them (sacctmgr_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sacctmgr_options {

inline constexpr option kLong[] = {
    {"immediate", no_argument, nullptr, 'i'},
    {"noheader", no_argument, nullptr, 'n'},
    {"parsable", no_argument, nullptr, 'p'},
    {"parsable2", no_argument, nullptr, 'P'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {"quiet", no_argument, nullptr, 'Q'},
    {"verbose", no_argument, nullptr, 'v'},
    {"associations", no_argument, nullptr, 's'},
    {"readonly", no_argument, nullptr, 'r'},
    {"usage", no_argument, nullptr, 'h'},
    {"json", no_argument, nullptr, kRefusedOption},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "+inpPhVQvsr";
inline constexpr RefusedOption kRefused[] = {
    {"json", 0, "JSON output is not supported by sacctmgr yet"},
    {"yaml", 0, "YAML output is not supported"},
};

}  // namespace rota::cli::sacctmgr_options
