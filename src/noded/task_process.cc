#include "noded/task_process.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rota::noded {
namespace {

struct ChildFailure {
  int stage;  // 1 release, 2 session, 3 identity, 4 stdio, 5 exec
  int error;
};

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
}

}  // namespace

Result<TaskProcess> SpawnTaskProcess(const TaskProcessSpec& spec, const BeforeExec& before_exec) {
  if (spec.argv.empty()) return InvalidArgument("no command to run");
  int release[2], error[2], out[2], err[2];
  if (pipe2(release, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + strerror(errno));
  if (pipe2(error, O_CLOEXEC) != 0) {
    CloseAll({release[0], release[1]});
    return Internal(std::string("pipe: ") + strerror(errno));
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    CloseAll({release[0], release[1], error[0], error[1]});
    return Internal(std::string("pipe: ") + strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    CloseAll({release[0], release[1], error[0], error[1], out[0], out[1]});
    return Internal(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);

  pid_t pid = fork();
  if (pid < 0) {
    CloseAll({release[0], release[1], error[0], error[1], out[0], out[1], err[0], err[1]});
    return Internal(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    // Async-signal-safe calls only from here on.
    auto fail = [&](int stage) {
      ChildFailure f{stage, errno};
      (void)!write(error[1], &f, sizeof f);
      _exit(127);
    };
    // The parent's ends: with the release pipe's write end open here, a
    // parent that gives up (closes its end unwritten) would leave this waiting.
    close(release[1]);
    close(error[0]);
    close(out[0]);
    close(err[0]);
    char go;
    if (read(release[0], &go, 1) != 1) fail(1);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    if (setsid() < 0) fail(2);
    if (getuid() == 0) {
      if (setgroups(spec.groups.size(), spec.groups.data()) != 0) fail(3);
      if (setgid(spec.gid) != 0) fail(3);
      if (setuid(spec.uid) != 0) fail(3);
    } else if (spec.uid != geteuid()) {
      errno = EPERM;
      fail(3);
    }
    if (chdir(spec.work_dir.c_str()) != 0) (void)!chdir("/tmp");
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) fail(4);
    // The error pipe closes itself at exec; everything else of the daemon's goes now.
    const int keep = error[1];
    if (keep > 3) close_range(3, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    // execvp searches the PATH of `environ`: the task's own.
    environ = envp.data();
    execvp(argv[0], argv.data());
    fail(5);
  }
  CloseAll({release[0], error[1], out[1], err[1]});
  Status ready = before_exec ? before_exec(pid) : Status::Ok();
  if (ready.ok()) {
    char go = 1;
    if (write(release[1], &go, 1) != 1) ready = Internal("cannot release the task's process");
  }
  close(release[1]);
  ChildFailure failure{};
  ssize_t n;
  do {
    n = read(error[0], &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  close(error[0]);
  if (ready.ok() && n == 0) return TaskProcess{pid, out[0], err[0]};
  CloseAll({out[0], err[0]});
  if (!ready.ok()) kill(pid, SIGKILL);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ready.ok()) return ready;
  if (n != static_cast<ssize_t>(sizeof failure)) return Internal("the task's process vanished");
  static constexpr const char* kStages[] = {"",       "waiting to be released", "setsid",
                                            "setuid", "setting up its stdio",   "cannot execute"};
  std::string what = failure.stage >= 1 && failure.stage <= 5 ? kStages[failure.stage] : "start";
  if (failure.stage == 5) what += " " + spec.argv[0];
  return FailedPrecondition(what + ": " + strerror(failure.error));
}

}  // namespace rota::noded
