#include "noded/stepd/task_process.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/mempolicy.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rota::noded {
namespace {

struct ChildFailure {
  // 1 release, 2 session, 3 identity, 4 stdio, 5 exec, 6-8 stdin/out/err file,
  // 9 controlling terminal
  int stage;
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
  // Pipes: release, error, then stdout, stderr and stdin when wanted.
  int release[2] = {-1, -1}, error[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1},
      in[2] = {-1, -1};
  auto close_pipes = [&] {
    CloseAll(
        {release[0], release[1], error[0], error[1], out[0], out[1], err[0], err[1], in[0], in[1]});
  };
  const bool terminal = spec.terminal_fd >= 0;
  for (int* p : {release, error, spec.stdout_path.empty() && !terminal ? out : nullptr,
                 spec.stderr_path.empty() && !terminal ? err : nullptr,
                 spec.stdin_pipe && !terminal ? in : nullptr}) {
    if (p != nullptr && pipe2(p, O_CLOEXEC) != 0) {
      int saved = errno;
      close_pipes();
      return Internal(std::string("pipe: ") + strerror(saved));
    }
  }
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);
  const int out_flags = O_WRONLY | O_CREAT | O_APPEND | (spec.truncate_out ? O_TRUNC : 0);
  const int err_flags = O_WRONLY | O_CREAT | O_APPEND | (spec.truncate_err ? O_TRUNC : 0);
  const bool shared_out = !spec.stdout_path.empty() && spec.stderr_path == spec.stdout_path;
  // set_mempolicy's node mask, made here: the child only makes system calls.
  std::vector<unsigned long> mem_mask;
  for (uint32_t node : spec.mem_nodes) {
    if (node / 64 >= mem_mask.size()) mem_mask.resize(node / 64 + 1, 0);
    mem_mask[node / 64] |= 1UL << (node % 64);
  }

  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close_pipes();
    return Internal(std::string("fork: ") + strerror(saved));
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
    if (out[0] >= 0) close(out[0]);
    if (err[0] >= 0) close(err[0]);
    if (in[1] >= 0) close(in[1]);
    char go;
    if (read(release[0], &go, 1) != 1) fail(1);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    if (setsid() < 0) fail(2);
    // The new session's controlling terminal: ^C there signals the task's
    // foreground processes, and the task's /dev/tty is it.
    if (terminal && ioctl(spec.terminal_fd, TIOCSCTTY, 0) != 0) fail(9);
    // crun refuses a hybrid cgroup layout (v1 controllers plus a cgroup2
    // mount), which it need not see: the task's cage already holds it.
    if (spec.runtime_mounts && getuid() == 0 && !EnterRuntimeMountNamespace()) fail(10);
    if (getuid() == 0) {
      if (setgroups(spec.groups.size(), spec.groups.data()) != 0) fail(3);
      if (setgid(spec.gid) != 0) fail(3);
      if (setuid(spec.uid) != 0) fail(3);
    } else if (spec.uid != geteuid()) {
      errno = EPERM;
      fail(3);
    }
    ApplySoftLimits(spec.soft_limits);
    if (!mem_mask.empty() &&
        syscall(SYS_set_mempolicy, spec.mem_prefer ? MPOL_PREFERRED : MPOL_BIND, mem_mask.data(),
                mem_mask.size() * 64 + 1) != 0) {
      fail(11);
    }
    if (chdir(spec.work_dir.c_str()) != 0) (void)!chdir("/tmp");
    umask(spec.umask);
    // Files are opened here, as the task's user, relative to its directory.
    if (terminal) {
      if (dup2(spec.terminal_fd, 0) < 0 || dup2(spec.terminal_fd, 1) < 0 ||
          dup2(spec.terminal_fd, 2) < 0) {
        fail(4);
      }
    }
    int stdin_fd = terminal ? 0 : in[0];
    if (stdin_fd < 0)
      stdin_fd = open(spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path.c_str(), O_RDONLY);
    if (stdin_fd < 0) fail(6);
    int stdout_fd = terminal ? 1 : out[1];
    if (stdout_fd < 0) stdout_fd = open(spec.stdout_path.c_str(), out_flags, 0666);
    if (stdout_fd < 0) fail(7);
    int stderr_fd = terminal ? 2 : err[1];
    if (shared_out) stderr_fd = stdout_fd;
    if (stderr_fd < 0) stderr_fd = open(spec.stderr_path.c_str(), err_flags, 0666);
    if (stderr_fd < 0) fail(8);
    if (!terminal && (dup2(stdin_fd, 0) < 0 || dup2(stdout_fd, 1) < 0 || dup2(stderr_fd, 2) < 0)) {
      fail(4);
    }
    // The error pipe closes itself at exec; everything else of the daemon's goes now.
    const int keep = error[1];
    if (spec.keep_fd < 0) {
      if (keep > 3) close_range(3, keep - 1, 0);
      close_range(keep + 1, ~0U, 0);
    } else {
      if (fcntl(spec.keep_fd, F_SETFD, 0) != 0) fail(4);
      const int low = keep < spec.keep_fd ? keep : spec.keep_fd;
      const int high = keep < spec.keep_fd ? spec.keep_fd : keep;
      if (low > 3) close_range(3, low - 1, 0);
      if (high > low + 1) close_range(low + 1, high - 1, 0);
      close_range(high + 1, ~0U, 0);
    }
    // execvp searches the PATH of `environ`: the task's own.
    environ = envp.data();
    execvp(argv[0], argv.data());
    fail(5);
  }
  CloseAll({release[0], error[1], out[1], err[1], in[0]});
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
  if (ready.ok() && n == 0) {
    if (in[1] >= 0) fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    return TaskProcess{pid, out[0], err[0], in[1]};
  }
  CloseAll({out[0], err[0], in[1]});
  if (!ready.ok()) kill(pid, SIGKILL);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ready.ok()) return ready;
  if (n != static_cast<ssize_t>(sizeof failure)) return Internal("the task's process vanished");
  static constexpr const char* kStages[] = {"",
                                            "waiting to be released",
                                            "setsid",
                                            "setuid",
                                            "setting up its stdio",
                                            "cannot execute",
                                            "cannot open",
                                            "cannot open",
                                            "cannot open",
                                            "cannot take its terminal",
                                            "cannot make its mount namespace",
                                            "cannot bind its memory (--mem-bind)"};
  std::string what = failure.stage >= 1 && failure.stage <= 11 ? kStages[failure.stage] : "start";
  if (failure.stage == 5) what += " " + spec.argv[0];
  if (failure.stage == 6) what += " " + spec.stdin_path;
  if (failure.stage == 7) what += " " + spec.stdout_path;
  if (failure.stage == 8) what += " " + spec.stderr_path;
  return FailedPrecondition(what + ": " + strerror(failure.error));
}

}  // namespace rota::noded
