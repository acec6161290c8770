#include "noded/stepd/step_forker.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "noded/stepd/step_launcher.h"

namespace rota::noded {
namespace {

// A forked step daemon is running within microseconds; a server that does not
// answer within this is stuck, and rotad stops asking it.
constexpr int kAnswerTimeoutMs = 10'000;

// Receives one fixed-size message within kAnswerTimeoutMs.
bool ReceiveWithin(int fd, int32_t* value) {
  pollfd p{fd, POLLIN, 0};
  int ready;
  while ((ready = poll(&p, 1, kAnswerTimeoutMs)) < 0 && errno == EINTR) {
  }
  if (ready <= 0) return false;
  ssize_t n;
  while ((n = recv(fd, value, sizeof *value, 0)) < 0 && errno == EINTR) {
  }
  return n == static_cast<ssize_t>(sizeof *value);
}

}  // namespace

Result<std::unique_ptr<StepForker>> StepForker::Start(const std::string& program,
                                                      std::vector<std::string> args) {
  int ends[2];
  // Datagrams on a stream: each request and answer arrives whole or not at all.
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return Internal(std::string("socketpair: ") + std::strerror(errno));
  }
  args.push_back("-S");
  Status spawned = SpawnStepDaemon(program, args, ends[1]);
  close(ends[1]);
  int32_t server_pid = 0;
  if (!spawned.ok() || !ReceiveWithin(ends[0], &server_pid) || server_pid <= 0) {
    close(ends[0]);
    return spawned.ok() ? Internal("the step daemon server did not start") : spawned;
  }
  return std::unique_ptr<StepForker>(new StepForker(ends[0], server_pid));
}

StepForker::~StepForker() {
  if (fd_ >= 0) close(fd_);
}

Result<pid_t> StepForker::Launch(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) return Internal("the step daemon server is gone");
  int32_t answer = 0;
  ssize_t sent;
  while ((sent = send(fd_, &job_id, sizeof job_id, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (sent != static_cast<ssize_t>(sizeof job_id) || !ReceiveWithin(fd_, &answer)) {
    // Closing tells a stuck server to go too.
    close(fd_);
    fd_ = -1;
    return Internal("the step daemon server stopped answering");
  }
  if (answer < 0) return Internal(std::string("fork: ") + std::strerror(-answer));
  return static_cast<pid_t>(answer);
}

int ServeStepForks(int fd, const std::function<int(uint32_t job_id)>& run_step) {
  // The step daemons it forks are the kernel's to reap: nobody here waits.
  signal(SIGCHLD, SIG_IGN);
  // Each step daemon looks up its job's user and the user's groups; loading
  // the name service modules here does it once for all of them (a forked
  // step daemon would otherwise load, say, libnss_systemd for every job).
  (void)getpwuid(0);
  gid_t groups[16];
  int count = 16;
  (void)getgrouplist("root", 0, groups, &count);
  const int32_t self = getpid();
  if (send(fd, &self, sizeof self, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof self)) return 1;
  for (;;) {
    uint32_t job_id = 0;
    ssize_t n = recv(fd, &job_id, sizeof job_id, 0);
    if (n == 0) return 0;  // rotad closed its end (stopped or died)
    if (n < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    int32_t answer;
    if (n != static_cast<ssize_t>(sizeof job_id) || job_id == 0) {
      answer = -EINVAL;
    } else {
      pid_t pid = fork();
      if (pid == 0) {
        close(fd);
        // The step daemon waits for its job's processes itself.
        signal(SIGCHLD, SIG_DFL);
        setsid();
        int code = run_step(job_id);
        spdlog::default_logger()->flush();
        std::fflush(nullptr);
        // No static destructors: the server's state is not this process's to tear down.
        _exit(code);
      }
      answer = pid > 0 ? pid : -errno;
    }
    if (send(fd, &answer, sizeof answer, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof answer)) {
      return 0;  // rotad is gone
    }
  }
}

}  // namespace rota::noded
