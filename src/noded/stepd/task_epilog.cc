#include "noded/stepd/task_epilog.h"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>

namespace rota::noded {

Result<int> RunTaskEpilog(const std::string& program, JobProcessSpec task,
                          const BeforeExec& before_exec,
                          const std::function<void(pid_t)>& started) {
  task.program = program;
  task.argv = {program};
  std::erase_if(task.env,
                [](const std::string& e) { return e.rfind("SLURM_SCRIPT_CONTEXT=", 0) == 0; });
  task.env.push_back("SLURM_SCRIPT_CONTEXT=epilog_task");
  task.stdout_path = "/dev/null";
  task.stderr_path = "/dev/null";
  task.append = true;
  Result<pid_t> pid = SpawnJobProcess(task, before_exec);
  if (!pid.ok()) return pid.status();
  if (started) started(*pid);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (started) started(-1);
  return status;
}

}  // namespace rota::noded
