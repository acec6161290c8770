#pragma once

// sstat's options as getopt_long takes them (sstat_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sstat_options {

enum : int { kNoConvert = 1000, kUsage };
inline constexpr option kLong[] = {
    {"allsteps", no_argument, nullptr, 'a'},
    {"format", required_argument, nullptr, 'o'},
    {"fields", required_argument, nullptr, 'o'},
    {"helpformat", no_argument, nullptr, 'e'},
    {"help", no_argument, nullptr, 'h'},
    {"jobs", required_argument, nullptr, 'j'},
    {"noconvert", no_argument, nullptr, kNoConvert},
    {"noheader", no_argument, nullptr, 'n'},
    {"parsable", no_argument, nullptr, 'p'},
    {"parsable2", no_argument, nullptr, 'P'},
    {"usage", no_argument, nullptr, kUsage},
    {"verbose", no_argument, nullptr, 'v'},
    {"version", no_argument, nullptr, 'V'},
    {"pidformat", no_argument, nullptr, 'i'},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "ao:ehij:npPvV";
inline constexpr RefusedOption kRefused[] = {
    {"pidformat", 'i',
     "not supported: Rota does not list a step's processes; -o JobID,Nodelist,NTasks shows where "
     "it runs"},
};

}  // namespace rota::cli::sstat_options
