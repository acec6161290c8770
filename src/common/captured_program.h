#pragma once

// Runs a site's program to its end with its output captured: what rotad does
// with Prolog, Epilog and HealthCheckProgram, and rotactld with MailProg and
// PrologSlurmctld. The caller's daemon has other threads, so everything the
// child needs is prepared before fork, and the child only dup2s and execs.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace rota {

struct CapturedRun {
  // How it could not be started ("pipe: ...", "fork: ..."); empty when it ran.
  std::string start_error;
  bool timed_out = false;  // Killed, with everything it started, at the timeout
  int wait_status = 0;     // As waitpid gives it; 127 exit: execve failed
  std::string output;      // Standard output and error together, the first 64 KiB
};

// Another user for the program to run as (rotad imports a job's container
// image as its user): in working directory /, umask 022.
struct CapturedIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // Supplementary groups
};

// Runs argv[0] (no shell, no PATH search) with `environment` (NAME=value) and
// stdin from /dev/null, in a session of its own with default signal handling,
// until it and everything holding its output end, or `timeout` passes.
// `as`: the user it runs as (null: the caller); when the caller is not root
// it must be the caller, else the run fails (exit 126, the reason as output).
// REQUIRES: argv is not empty.
CapturedRun RunCaptured(const std::vector<std::string>& argv,
                        const std::vector<std::string>& environment,
                        std::chrono::milliseconds timeout, const CapturedIdentity* as = nullptr);

}  // namespace rota
