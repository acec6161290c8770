#pragma once

// Test support: a private munged, started as a child process with its key,
// socket, pid, log and seed files in a directory the test owns. The destructor
// stops it by its pid (SIGTERM, then SIGKILL) whether the test passed or not.

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/status.h"

namespace rota::auth::testing {

class MungedProcess {
 public:
  // Creates a fresh key in `dir` and starts /usr/sbin/munged (or $MUNGED) on
  // `dir`/munge.socket, returning once it answers an encode request. On failure
  // the error carries munged's own output, so the cause is visible.
  static Result<std::unique_ptr<MungedProcess>> Start(const std::filesystem::path& dir);

  ~MungedProcess();
  MungedProcess(const MungedProcess&) = delete;
  MungedProcess& operator=(const MungedProcess&) = delete;

  const std::string& socket_path() const { return socket_path_; }

 private:
  MungedProcess(pid_t pid, std::string socket_path) : pid_(pid), socket_path_(socket_path) {}

  pid_t pid_;
  std::string socket_path_;
};

}  // namespace rota::auth::testing
