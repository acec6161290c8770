#include "ctld/server/controller_program.h"

#include <sys/wait.h>

#include "common/captured_program.h"

namespace rota::ctld {

ProgramOutcome RunControllerProgram(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& environment,
                                    std::chrono::seconds timeout) {
  ProgramOutcome outcome;
  CapturedRun run = RunCaptured(argv, environment, timeout);
  outcome.output = std::move(run.output);
  const int status = run.wait_status;
  if (!run.start_error.empty()) {
    outcome.problem = run.start_error;
  } else if (run.timed_out) {
    outcome.problem = "timed out after " + std::to_string(timeout.count()) + " s";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && outcome.output.empty()) {
    outcome.problem = "could not be run";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    outcome.problem = "exited with status " + std::to_string(WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    outcome.problem = "killed by signal " + std::to_string(WTERMSIG(status));
  } else {
    outcome.ok = true;
  }
  return outcome;
}

}  // namespace rota::ctld
