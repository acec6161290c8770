#pragma once

// One task of a job step on this node, from its start (task_spawner.h) until
// srun has been told of its exit (step_io_relay.h). The descriptors are
// rotad's ends of the task's stdio; whoever holds the task closes what is
// still open (-1 once closed) and kills and reaps it if it has not exited.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rota::noded {

struct LocalTask {
  uint32_t global_id = 0;
  uint32_t local_id = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr read ends
  int pidfd = -1;         // Readable once the task exits (-1: kernel without pidfd)
  bool exited = false;
  uint32_t wait_status = 0;
  uint64_t max_rss_kb = 0;   // Its peak resident set with its waited-for children's (wait4)
  uint64_t user_cpu_us = 0;  // Its CPU time with its waited-for children's (wait4)
  uint64_t system_cpu_us = 0;
  bool reported = false;
  bool out_of_memory = false;  // Ended after the kernel's memory kill in its step's cage
  int stdin_fd = -1;           // From srun (-i): write end, non-blocking
  std::string stdin_pending;   // Received from srun, not yet taken by the task
  bool stdin_eof = false;      // srun's stdin ended: close once pending is written
  // --pty: the pseudo-terminal's master side (task 0 only), for its size.
  // fds[0] and stdin_fd are copies of it: output and input go through it.
  int terminal = -1;
  // Its environment, kept for the TaskEpilog when slurm.conf names one.
  std::vector<std::string> env;
};

}  // namespace rota::noded
