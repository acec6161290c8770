#pragma once

// The command line the daemons (rotactld, rotad, rotadbd) share: -f/--config
// FILE, -D (foreground, the only mode), -v (debug log), -h/--help, and no
// arguments beyond options. Each adds its own options through DaemonOptions.

#include <getopt.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rota {

struct DaemonCommandLine {
  std::string slurm_conf_path;  // -f; the caller sets the default before parsing
  std::string log_level = "info";
};

// A daemon's own options, on top of the shared ones.
struct DaemonOptions {
  std::string short_options;         // getopt letters, e.g. "N:"
  std::vector<option> long_options;  // Without the terminating zero entry
  std::function<void(int option, const char* argument)> apply;
};

// Parses argv into `out` and the daemon's own options. Returns nullopt to go
// on, or the exit status: 0 after printing help to stdout, 1 after a usage
// error (the usage goes to stderr).
std::optional<int> ParseDaemonCommandLine(int argc, char** argv, const char* program,
                                          void (*usage)(FILE*), const DaemonOptions& own,
                                          DaemonCommandLine& out);

}  // namespace rota
