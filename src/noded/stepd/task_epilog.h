#pragma once

// slurm.conf's TaskEpilog: run after each task ends (the batch script is a
// task too), as the task's user, with the task's environment plus
// SLURM_SCRIPT_CONTEXT=epilog_task, inside the task's cage. As in Slurm its
// output goes nowhere, it has no time limit of its own (ending the job kills
// it with the cage) and a failure is only logged.

#include <sys/types.h>

#include <functional>
#include <string>

#include "common/status.h"
#include "noded/stepd/job_process.h"

namespace rota::noded {

// Runs `program` as `task` describes the task (identity, groups, work dir,
// environment, limits; its program, arguments and stdio are replaced) and
// waits for it. `before_exec` puts it into the cage; `started`, when set, is
// told its pid while it runs and -1 once it was reaped. Returns its wait
// status; errors: it could not be started.
Result<int> RunTaskEpilog(const std::string& program, JobProcessSpec task,
                          const BeforeExec& before_exec,
                          const std::function<void(pid_t)>& started = {});

}  // namespace rota::noded
