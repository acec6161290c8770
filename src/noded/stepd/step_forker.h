#pragma once

// Step daemons forked from a waiting one. Starting a rota-stepd by exec costs
// milliseconds of CPU per job before it does anything (dynamic linking, the
// protobuf descriptors, CPU feature probing, the configuration, GPU discovery),
// and rotad's fork copies a large multithreaded process. So rotad starts one
// rota-stepd in server mode (`-S`) that has done all of that once and, being
// single-threaded, can fork safely: each job's step daemon is a fork of it, in
// a session of its own. The server ends when rotad's end of the socket
// closes; the step daemons it forked live on (init adopts them), as they
// would after an exec.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// rotad's side.
class StepForker {
 public:
  // Starts `program` with `args` and `-S` (the server reads requests on
  // descriptor 3) and waits for it to be ready.
  static Result<std::unique_ptr<StepForker>> Start(const std::string& program,
                                                   std::vector<std::string> args);
  ~StepForker();  // Closes the socket: the server exits.

  // Forks the step daemon of `job_id` (its step record must be written);
  // returns its pid. An error means the server is gone or broken: it is not
  // asked again, and the caller starts the step daemon some other way.
  Result<pid_t> Launch(uint32_t job_id);

  // False once the server is gone or broken.
  bool usable() {
    std::lock_guard<std::mutex> lock(mu_);
    return fd_ >= 0;
  }
  pid_t server_pid() const { return server_pid_; }

 private:
  explicit StepForker(int fd, pid_t server_pid) : fd_(fd), server_pid_(server_pid) {}

  std::mutex mu_;  // One request at a time on the socket
  int fd_;         // -1 once broken
  pid_t server_pid_;
};

// The server's side, in rota-stepd: answers requests on `fd` until it closes.
// `run_step(job_id)` runs in each forked child, in a session of its own, and
// returns the child's exit code. Returns the server's exit code.
int ServeStepForks(int fd, const std::function<int(uint32_t job_id)>& run_step);

}  // namespace rota::noded
