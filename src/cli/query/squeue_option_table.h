#pragma once

// squeue's options as getopt_long takes them (squeue_main.cc). docs/options.md
// has a row for each ("The other commands"), and CommandOptionTablesTest checks
// that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::squeue_options {

enum : int {
  kStart = 1000,
  kJson,
  kNoOp = 1100,
  kNoConvert,
  kArrayUnique,
  kReservation,
  kLicenses
};
inline constexpr option kLong[] = {
    {"noheader", no_argument, nullptr, 'h'},
    {"long", no_argument, nullptr, 'l'},
    {"format", required_argument, nullptr, 'o'},
    {"Format", required_argument, nullptr, 'O'},
    {"user", required_argument, nullptr, 'u'},
    {"jobs", optional_argument, nullptr, 'j'},
    {"partition", required_argument, nullptr, 'p'},
    {"states", required_argument, nullptr, 't'},
    {"account", required_argument, nullptr, 'A'},
    {"qos", required_argument, nullptr, 'q'},
    {"name", required_argument, nullptr, 'n'},
    {"nodelist", required_argument, nullptr, 'w'},
    {"array", no_argument, nullptr, 'r'},
    {"sort", required_argument, nullptr, 'S'},
    {"start", no_argument, nullptr, kStart},
    {"json", no_argument, nullptr, kJson},
    {"help", no_argument, nullptr, 1003},
    {"version", no_argument, nullptr, 'V'},
    {"clusters", required_argument, nullptr, 'M'},
    // One cluster, no federation: these change nothing.
    {"local", no_argument, nullptr, kNoOp},
    {"federation", no_argument, nullptr, kNoOp},
    {"noconvert", no_argument, nullptr, kNoConvert},
    {"me", no_argument, nullptr, 1002},
    {"all", no_argument, nullptr, 'a'},
    {"steps", optional_argument, nullptr, 's'},
    {"verbose", no_argument, nullptr, 'v'},
    {"hide", no_argument, nullptr, kNoOp},
    {"sibling", no_argument, nullptr, kNoOp},
    {"priority", no_argument, nullptr, 'P'},
    {"array-unique", no_argument, nullptr, kArrayUnique},
    {"reservation", required_argument, nullptr, 'R'},
    {"licenses", required_argument, nullptr, 'L'},
    {"usage", no_argument, nullptr, 1003},
    {"iterate", required_argument, nullptr, 'i'},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "hlo:O:u:j::p:t:A:q:n:w:rS:avVs::M:PR:L:i:";
inline constexpr RefusedOption kRefused[] = {
    {"yaml", 0, "YAML output is not supported; --json gives the same records"},
};

}  // namespace rota::cli::squeue_options
