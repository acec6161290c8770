#pragma once

// Starts one task of a job step as its user, with its standard output and
// error on pipes that rotad relays to srun. Like SpawnJobProcess
// (job_process.h), the child waits until `before_exec` has put it into its
// cage, and only makes system calls between fork and exec; unlike it, the
// command is looked up in the task's own PATH (srun hostname).

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "noded/stepd/job_process.h"

namespace rota::noded {

struct TaskProcessSpec {
  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in env's PATH
  std::vector<std::string> env;   // NAME=value
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string work_dir;  // /tmp when it cannot be entered
  // Files for the standard streams, opened by the task itself (as its user,
  // relative to its work dir). Empty: stdout/stderr go to pipes, stdin is
  // /dev/null unless `stdin_pipe`.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;   // Equal to stdout_path: one file for both
  bool truncate_out = true;  // Truncate the output files (else only append)
  bool truncate_err = true;
  bool stdin_pipe = false;  // stdin from a pipe (TaskProcess::stdin_fd)
  // The terminal side of a pseudo-terminal (srun --pty, task_terminal.h):
  // when set, it is the task's stdin, stdout and stderr and its controlling
  // terminal, and the stdio paths above are not used. The caller closes it.
  int terminal_fd = -1;
  // A descriptor the task keeps under its own number (its PMI_FD, srun
  // --mpi=pmi2); -1: none. The caller closes it.
  int keep_fd = -1;
  std::vector<SoftLimit> soft_limits;  // Set once the task is its user (job_process.h)
  mode_t umask = 022;  // The submitter's (UmaskFromEnvironment), for every file the task makes.
  // The command is an OCI runtime starting a container (container/): the task
  // gets a mount namespace of its own, without the cgroup2 mount of a hybrid
  // cgroup layout, before it becomes its user.
  bool runtime_mounts = false;
  // srun --mem-bind (task_mem_binding.h): the NUMA nodes the task binds its
  // memory to just before it execs (set_mempolicy; inherited by what it
  // starts); empty: the kernel's default. `prefer`: prefer the first instead.
  std::vector<uint32_t> mem_nodes;
  bool mem_prefer = false;
};

struct TaskProcess {
  pid_t pid = -1;      // Leads its own session and process group.
  int stdout_fd = -1;  // Read ends, close-on-exec; the caller closes them.
  int stderr_fd = -1;
  int stdin_fd = -1;  // Write end when spec.stdin_pipe, non-blocking, close-on-exec.
};

// Errors: why the task could not start ("cannot execute foo: No such file or
// directory", "cannot open out.7: Permission denied"), the child already reaped.
Result<TaskProcess> SpawnTaskProcess(const TaskProcessSpec& spec, const BeforeExec& before_exec);

}  // namespace rota::noded
