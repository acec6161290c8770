#pragma once

// scontrol's options as getopt_long takes them (scontrol_main.cc). Options may
// come after the command words too (`scontrol show jobid -dd 5`), as getopt
// permutes them in Slurm's scontrol. docs/options.md has a row for each ("The
// other commands"), and CommandOptionTablesTest checks that the two agree.

#include <getopt.h>

#include "cli/refused_option.h"

namespace rota::cli::scontrol_options {

enum : int { kNoOp = 1000 };
inline constexpr option kLong[] = {
    {"all", no_argument, nullptr, 'a'},
    {"details", no_argument, nullptr, 'd'},
    {"future", no_argument, nullptr, 'F'},
    {"help", no_argument, nullptr, 'h'},
    {"usage", no_argument, nullptr, 'h'},
    {"clusters", required_argument, nullptr, 'M'},
    {"cluster", required_argument, nullptr, 'M'},
    {"oneliner", no_argument, nullptr, 'o'},
    {"quiet", no_argument, nullptr, 'Q'},
    {"verbose", no_argument, nullptr, 'v'},
    {"version", no_argument, nullptr, 'V'},
    // One cluster, no federation, nothing hidden: these change nothing.
    {"federation", no_argument, nullptr, kNoOp},
    {"local", no_argument, nullptr, kNoOp},
    {"sibling", no_argument, nullptr, kNoOp},
    {"hide", no_argument, nullptr, kNoOp},
    {"uid", required_argument, nullptr, 'u'},
    {"json", no_argument, nullptr, kRefusedOption},
    {"yaml", no_argument, nullptr, kRefusedOption},
    {nullptr, 0, nullptr, 0},
};
inline constexpr char kShort[] = "adFhM:oQu:vV";
inline constexpr RefusedOption kRefused[] = {
    {"uid", 'u', "not supported: scontrol acts as the user who runs it"},
    {"json", 0,
     "JSON output is not supported by scontrol; squeue --json and sinfo's fields give "
     "the same records"},
    {"yaml", 0, "YAML output is not supported"},
};

}  // namespace rota::cli::scontrol_options
