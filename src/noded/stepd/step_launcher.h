#pragma once

// rotad's side of rota-stepd: starting one for a job, and finding out how its
// job ended. The step daemon is started detached (its own session, reparented
// to init), so that rotad dying, or its process group being killed, leaves
// the job running.

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"
#include "rota.pb.h"
#include "step.pb.h"

namespace rota::noded {

// The rota-stepd beside the running rotad's executable.
std::string StepDaemonProgram();

// Starts `program` with `args` (argv[1..]) as a daemon: new session, stdin
// /dev/null, stdout and stderr shared with rotad's (its log), nothing else
// open but `pass_fd`, which it gets as descriptor 3 when given. Returns once
// it has been exec'd or failed to be.
Status SpawnStepDaemon(const std::string& program, const std::vector<std::string>& args,
                       int pass_fd = -1);

// Waits until the step daemon of `job_id` has started its script, found it
// cannot, or ended; gives up when it has not answered within `start_timeout`,
// stops answering, or after `timeout` in all.
void AwaitStepStarted(const std::string& spool_dir, uint32_t job_id,
                      std::chrono::milliseconds start_timeout, std::chrono::milliseconds timeout);

// Waits for the step daemon of `job_id` to end its job and returns the
// outcome: from the daemon itself, else from the outcome it recorded. One that
// never answers within `start_timeout`, or dies without recording anything,
// yields a failed exit (code 1) whose failure_reason says so.
wire::JobExitedRequest AwaitStepOutcome(const std::string& spool_dir, const std::string& node,
                                        uint32_t job_id, std::chrono::milliseconds start_timeout);

// The exit report for a job whose step daemon is gone without an outcome.
wire::JobExitedRequest LostStepOutcome(const std::string& node, uint32_t job_id,
                                       const std::string& reason);

}  // namespace rota::noded
