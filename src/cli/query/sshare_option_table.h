#pragma once

// sshare's options as getopt_long takes them (sshare_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sshare_options {

inline constexpr option kLong[] = {
    {"all", no_argument, nullptr, 'a'},
    {"accounts", required_argument, nullptr, 'A'},
    {"long", no_argument, nullptr, 'l'},
    {"noheader", no_argument, nullptr, 'n'},
    {"format", required_argument, nullptr, 'o'},
    {"parsable", no_argument, nullptr, 'p'},
    {"parsable2", no_argument, nullptr, 'P'},
    {"users", required_argument, nullptr, 'u'},
    {"help", no_argument, nullptr, 1001},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    {"verbose", no_argument, nullptr, 'v'},
    {"usage", no_argument, nullptr, 1001},
    {"Users", no_argument, nullptr, 'U'},
    {"partition", no_argument, nullptr, 'm'},
    {"helpformat", no_argument, nullptr, 'e'},
    {"json", no_argument, nullptr, kRefusedOption},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "aA:lno:pPu:VM:vUme";
inline constexpr RefusedOption kRefused[] = {
    {"json", 0, "JSON output is not supported by sshare yet"},
    {"yaml", 0, "YAML output is not supported"},
};

}  // namespace rota::cli::sshare_options
