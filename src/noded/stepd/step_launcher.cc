#include "noded/stepd/step_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/log.h"
#include "noded/stepd/step_channel.h"
#include "noded/stepd/step_files.h"

namespace rota::noded {

std::string StepDaemonProgram() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "rota-stepd").string();
}

Status SpawnStepDaemon(const std::string& program, const std::vector<std::string>& args,
                       int pass_fd) {
  // Everything the children need is prepared before fork: between fork and
  // exec only system calls (other threads may hold allocator locks).
  std::vector<std::string> argv_text{program};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0)
    return Internal(std::string("pipe: ") + std::strerror(errno));

  pid_t child = fork();
  if (child < 0) {
    close(error_pipe[0]);
    close(error_pipe[1]);
    return Internal(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    // The intermediate child: a new session, then the daemon in it, then gone,
    // so that init adopts the daemon and rotad has no child to reap.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    setsid();
    if (fork() != 0) _exit(0);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd > 0) {
      dup2(null_fd, 0);
      close(null_fd);
    }
    int keep = error_pipe[1];
    int first_closed = 3;
    if (pass_fd >= 0) {
      // The passed descriptor becomes 3 (open across the exec); the error pipe
      // moves above it first, in case it is 3 itself.
      keep = fcntl(error_pipe[1], F_DUPFD_CLOEXEC, 4);
      if (pass_fd == 3) {
        fcntl(3, F_SETFD, 0);
      } else {
        dup2(pass_fd, 3);
      }
      first_closed = 4;
    }
    if (keep > first_closed) close_range(first_closed, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    execv(argv[0], argv.data());
    int err = errno;
    (void)!write(keep, &err, sizeof err);
    _exit(127);
  }
  close(error_pipe[1]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  // The pipe closes at the exec (close-on-exec) or carries its errno.
  int err = 0;
  ssize_t n;
  while ((n = read(error_pipe[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(error_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    return IoError("cannot run " + program + ": " + std::strerror(err));
  }
  return Status::Ok();
}

wire::JobExitedRequest LostStepOutcome(const std::string& node, uint32_t job_id,
                                       const std::string& reason) {
  wire::JobExitedRequest lost;
  lost.set_job_id(job_id);
  lost.set_node(node);
  lost.set_wait_status(1u << 8);  // Slurm's code for a job that failed on its node.
  lost.set_failure_reason(reason);
  return lost;
}

void AwaitStepStarted(const std::string& spool_dir, uint32_t job_id,
                      std::chrono::milliseconds start_timeout, std::chrono::milliseconds timeout) {
  const std::string socket = StepSocketPath(spool_dir, job_id);
  wire::StepRequest ask;
  ask.set_status(true);
  const auto begin = std::chrono::steady_clock::now();
  const auto deadline = begin + timeout;
  bool answered = false;  // Once it answered, silence means it is gone.
  // The controller's launch waits for this answer, so poll finely at first: a
  // script usually runs within milliseconds. Slower later for long Prologs.
  auto pause = std::chrono::milliseconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    Result<wire::StepStatus> status = AskStepDaemon(socket, ask, std::chrono::seconds(5));
    if (status.ok() && status->state() != wire::StepStatus::STEP_STARTING) return;
    if (!status.ok() && (answered || ReadStepOutcome(spool_dir, job_id) ||
                         std::chrono::steady_clock::now() - begin >= start_timeout)) {
      return;
    }
    answered |= status.ok();
    std::this_thread::sleep_for(pause);
    pause = std::min(2 * pause, std::chrono::milliseconds(20));
  }
}

wire::JobExitedRequest AwaitStepOutcome(const std::string& spool_dir, const std::string& node,
                                        uint32_t job_id, std::chrono::milliseconds start_timeout) {
  const std::string socket = StepSocketPath(spool_dir, job_id);
  wire::StepRequest wait;
  wait.set_wait_for_end(true);
  auto deadline = std::chrono::steady_clock::now() + start_timeout;
  while (true) {
    // Blocks until the job has ended; fails at once when nobody listens.
    Result<wire::StepStatus> status = AskStepDaemon(socket, wait, std::chrono::milliseconds(-1));
    if (status.ok() && status->state() == wire::StepStatus::STEP_ENDED) return status->outcome();
    // Gone without an answer: it records its outcome before it stops listening.
    if (std::optional<wire::JobExitedRequest> recorded = ReadStepOutcome(spool_dir, job_id)) {
      return *recorded;
    }
    // Until the deadline the daemon may still be starting (no socket yet).
    if (std::chrono::steady_clock::now() >= deadline) {
      return LostStepOutcome(node, job_id, "rota-stepd ended without recording how its job ended");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace rota::noded
