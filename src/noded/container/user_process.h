#pragma once

// Runs a program to its end as another user, its output captured: how rotad
// (root, multithreaded) runs rota-image for a job's user. Like RunCaptured
// (common/captured_program.h), everything is prepared before fork and the
// child only makes system calls before exec.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/captured_program.h"

namespace rota::noded::container {

struct UserIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // Supplementary groups.
};

// Runs argv[0] (no PATH search) as `user` with `environment`, working
// directory /, umask 022, stdin /dev/null, in a session of its own, until it
// and everything holding its output end or `timeout` passes (then all of it
// is killed). Standard output and error together, the first 64 KiB. When the
// caller is not root, `user` must be the caller.
// REQUIRES: argv is not empty.
CapturedRun RunCapturedAs(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment, const UserIdentity& user,
                          std::chrono::milliseconds timeout);

}  // namespace rota::noded::container
