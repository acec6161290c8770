#pragma once

// rota-task: the first program a task's process runs when slurm.conf names a
// TaskProlog. rotad (or rota-stepd for a batch script) starts the task as
// usual — its user, cage, limits and stdio already set — but with this
// program in front of the command. Here, in the task's own process, the
// TaskProlog runs (so SLURM_TASK_PID is the task's pid, as in Slurm), its
// output is applied (task_prolog_output.h), and the command is executed in
// the same process with the resulting environment.
//
//   rota-task [--container-config=PATH] TASK_PROLOG COMMAND [ARG...]
//
// In a container the command is the runtime, which takes the process's
// environment from the container's config.json, not from rota-task: what
// the TaskProlog set or unset is written there (PATH) before the runtime runs.

#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// Where rota-task is: beside the running daemon.
std::string TaskStarterProgram();

// What goes in front of a task's command to run `prolog` first: rota-task,
// told `container_config` (empty: the task is not in a container).
std::vector<std::string> TaskStarterCommand(const std::string& prolog,
                                            const std::string& container_config);

// The variables that differ between `before` and `after` (NAME=value; set,
// changed or unset) applied to the process environment of the OCI
// configuration at `config_path`, which is replaced (written beside it and
// renamed: its directory is the user's, the file may be root's). Errors: it
// cannot be read, is not a configuration, or cannot be written.
Status PassVariablesIntoContainer(const std::string& config_path,
                                  const std::vector<std::string>& before,
                                  const std::vector<std::string>& after);

struct TaskPrologRun {
  // The wait status's meaning: the exit code, or 1 when it did not exit
  // normally (killed, or could not be executed: 127) — Slurm's convention.
  int exit_code = 0;
  std::string output;  // Its standard output; its standard error is the task's.
};

// Runs `program` with `env` (NAME=value) plus SLURM_TASK_PID (this process)
// and SLURM_SCRIPT_CONTEXT=prolog_task, stdin from /dev/null, and waits for
// it. Errors: it could not be started (fork, pipe).
Result<TaskPrologRun> RunTaskProlog(const std::string& program, std::vector<std::string> env);

// The whole of rota-task: runs `prolog`, applies its output to `env`, prints
// what it asked to print, and replaces this process with `command` (looked up
// in the new environment's PATH). Returns only when that failed: the exit
// code the task should end with, after saying why on standard error.
// `container_config`: the config.json of the task's container, or empty.
int StartTaskAfterProlog(const std::string& prolog, const std::vector<std::string>& command,
                         std::vector<std::string> env, const std::string& container_config = "");

}  // namespace rota::noded
