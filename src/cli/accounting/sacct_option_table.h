#pragma once

// sacct's options as getopt_long takes them (sacct_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::sacct_options {

enum : int { kJson = 1000, kNoOp, kNoConvert, kName, kDelimiter, kEnvVars, kUnits };
inline constexpr option kLong[] = {
    {"allusers", no_argument, nullptr, 'a'},
    {"accounts", required_argument, nullptr, 'A'},
    {"account", required_argument, nullptr, 'A'},
    {"duplicates", no_argument, nullptr, 'D'},
    {"endtime", required_argument, nullptr, 'E'},
    {"jobs", required_argument, nullptr, 'j'},
    {"noheader", no_argument, nullptr, 'n'},
    {"format", required_argument, nullptr, 'o'},
    {"parsable", no_argument, nullptr, 'p'},
    {"parsable2", no_argument, nullptr, 'P'},
    {"partition", required_argument, nullptr, 'r'},
    {"state", required_argument, nullptr, 's'},
    {"starttime", required_argument, nullptr, 'S'},
    {"user", required_argument, nullptr, 'u'},
    {"allocations", no_argument, nullptr, 'X'},
    {"json", no_argument, nullptr, kJson},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    {"allclusters", no_argument, nullptr, 'L'},
    // One cluster, no federation: these change nothing.
    {"local", no_argument, nullptr, kNoOp},
    {"federation", no_argument, nullptr, kNoOp},
    {"noconvert", no_argument, nullptr, kNoConvert},
    {"brief", no_argument, nullptr, 'b'},
    {"delimiter", required_argument, nullptr, kDelimiter},
    {"name", required_argument, nullptr, kName},
    {"qos", required_argument, nullptr, 'q'},
    {"wckeys", required_argument, nullptr, 'W'},
    {"gid", required_argument, nullptr, 'g'},
    {"group", required_argument, nullptr, 'g'},
    {"verbose", no_argument, nullptr, 'v'},
    {"truncate", no_argument, nullptr, 'T'},
    {"array", no_argument, nullptr, kNoOp},
    {"whole-hetjob", optional_argument, nullptr, kNoOp},
    {"usage", no_argument, nullptr, 'h'},
    {"long", no_argument, nullptr, 'l'},
    {"helpformat", no_argument, nullptr, 'e'},
    {"nodelist", required_argument, nullptr, 'N'},
    {"batch-script", no_argument, nullptr, 'B'},
    {"completion", no_argument, nullptr, 'c'},
    {"file", required_argument, nullptr, 'f'},
    {"nnodes", required_argument, nullptr, 'i'},
    {"ncpus", required_argument, nullptr, 'I'},
    {"timelimit-min", required_argument, nullptr, 'k'},
    {"timelimit-max", required_argument, nullptr, 'K'},
    {"reason", required_argument, nullptr, 'R'},
    {"associations", required_argument, nullptr, 'x'},
    {"units", required_argument, nullptr, kUnits},
    {"env-vars", no_argument, nullptr, kEnvVars},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "aA:DE:j:no:pPr:s:S:u:XhVM:Lbq:W:g:vTleN:Bcf:i:I:k:K:R:x:";
inline constexpr RefusedOption kRefused[] = {
    {"completion", 'c', "not supported: there is no job completion log"},
    {"file", 'f', "not supported: accounting is read from rotadbd only"},
    {"associations", 'x', "not supported; -A and -u select by account and user"},
    {"yaml", 0, "YAML output is not supported; --json gives the same records"},
};

}  // namespace rota::cli::sacct_options
