#pragma once

// sinfo's options as getopt_long takes them (sinfo_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sinfo_options {

enum : int { kNoOp = 1100 };
inline constexpr option kLong[] = {
    {"noheader", no_argument, nullptr, 'h'},
    {"Node", no_argument, nullptr, 'N'},
    {"long", no_argument, nullptr, 'l'},
    {"list-reasons", no_argument, nullptr, 'R'},
    {"format", required_argument, nullptr, 'o'},
    {"Format", required_argument, nullptr, 'O'},
    {"partition", required_argument, nullptr, 'p'},
    {"states", required_argument, nullptr, 't'},
    {"summarize", no_argument, nullptr, 's'},
    {"sort", required_argument, nullptr, 'S'},
    {"nodes", required_argument, nullptr, 'n'},
    {"help", no_argument, nullptr, 1001},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    // One cluster, no federation, memory and disk printed in MB as stored:
    // these change nothing.
    {"local", no_argument, nullptr, kNoOp},
    {"federation", no_argument, nullptr, kNoOp},
    {"noconvert", no_argument, nullptr, kNoOp},
    {"all", no_argument, nullptr, 'a'},
    {"verbose", no_argument, nullptr, 'v'},
    {"hide", no_argument, nullptr, kNoOp},
    {"exact", no_argument, nullptr, 'e'},
    {"usage", no_argument, nullptr, 1001},
    {"iterate", required_argument, nullptr, 'i'},
    {"reservation", no_argument, nullptr, 'T'},
    {"dead", no_argument, nullptr, 'd'},
    {"responding", no_argument, nullptr, 'r'},
    {"json", no_argument, nullptr, kRefusedOption},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "hNlRo:O:p:t:sS:n:avVM:ei:Tdr";
inline constexpr RefusedOption kRefused[] = {
    {"json", 0, "JSON output is not supported by sinfo yet; scontrol show node gives every field"},
    {"yaml", 0, "YAML output is not supported"},
};

}  // namespace rota::cli::sinfo_options
