#pragma once

// Runs a program for the controller — MailProg now — off the state loop:
// fork and exec with the given arguments and environment, stdin from
// /dev/null, standard output and error collected, killed (with what it
// started) after a timeout. rotactld's identity is the program's (root or
// SlurmUser), as slurmctld's is.

#include <chrono>
#include <string>
#include <vector>

namespace rota::ctld {

struct ProgramOutcome {
  bool ok = false;      // Exited with status 0
  std::string problem;  // When not ok: how it failed ("exited with status 3", "timed out", ...)
  std::string output;   // What it wrote, standard output and error together
};

// REQUIRES: argv is not empty; argv[0] is the program's path.
ProgramOutcome RunControllerProgram(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& environment,
                                    std::chrono::seconds timeout);

}  // namespace rota::ctld
