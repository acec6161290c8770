#include "noded/stepd/job_process.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace rota::noded {
namespace {

// Where the child stopped, sent back through the error pipe with errno.
enum class Stage : int {
  kRelease = 1,
  kSession,
  kGroups,
  kGid,
  kUid,
  kStdin,
  kStdout,
  kStderr,
  kExec,
  kMounts,
};

struct ChildFailure {
  Stage stage;
  int error;
};

std::string Describe(const ChildFailure& f, const JobProcessSpec& spec) {
  std::string what;
  switch (f.stage) {
    case Stage::kRelease:
      what = "waiting to be released";
      break;
    case Stage::kSession:
      what = "setsid";
      break;
    case Stage::kGroups:
      what = "setgroups for uid " + std::to_string(spec.uid);
      break;
    case Stage::kGid:
      what = "setgid " + std::to_string(spec.gid);
      break;
    case Stage::kUid:
      what = "setuid " + std::to_string(spec.uid);
      break;
    case Stage::kStdin:
      what = "cannot open /dev/null";
      break;
    case Stage::kStdout:
      what = "cannot open " + spec.stdout_path;
      break;
    case Stage::kStderr:
      what = "cannot open " + spec.stderr_path;
      break;
    case Stage::kExec:
      what = "cannot execute " + spec.program;
      break;
    case Stage::kMounts:
      what = "cannot make the container runtime's mount namespace";
      break;
  }
  return what + ": " + std::strerror(f.error);
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// The child's side. Only async-signal-safe calls from here on.
[[noreturn]] void RunChild(const JobProcessSpec& spec, int release_fd, int error_fd,
                           char* const* argv, char* const* envp) {
  auto fail = [error_fd](Stage stage) {
    ChildFailure f{stage, errno};
    (void)!write(error_fd, &f, sizeof f);
    _exit(127);
  };
  char go;
  if (read(release_fd, &go, 1) != 1) fail(Stage::kRelease);
  close(release_fd);

  // The daemon blocks and ignores signals for its own reasons; a job must not
  // inherit that (exec keeps both the mask and ignored dispositions).
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);

  if (setsid() < 0) fail(Stage::kSession);
  if (spec.runtime_mounts && getuid() == 0 && !EnterRuntimeMountNamespace()) fail(Stage::kMounts);
  if (getuid() == 0) {
    if (setgroups(spec.groups.size(), spec.groups.data()) != 0) fail(Stage::kGroups);
    if (setgid(spec.gid) != 0) fail(Stage::kGid);
    if (setuid(spec.uid) != 0) fail(Stage::kUid);
  } else if (spec.uid != geteuid()) {
    errno = EPERM;
    fail(Stage::kUid);
  }
  ApplySoftLimits(spec.soft_limits);
  if (chdir(spec.work_dir.c_str()) != 0) (void)!chdir("/tmp");
  umask(spec.umask);

  const int mode = O_WRONLY | O_CREAT | (spec.append ? O_APPEND : O_TRUNC);
  int in = open("/dev/null", O_RDONLY);
  if (in < 0) fail(Stage::kStdin);
  int out = open(spec.stdout_path.c_str(), mode, 0666);
  if (out < 0) fail(Stage::kStdout);
  int err = out;
  if (spec.stderr_path != spec.stdout_path) {
    err = open(spec.stderr_path.c_str(), mode, 0666);
    if (err < 0) fail(Stage::kStderr);
  }
  if (dup2(in, 0) < 0) fail(Stage::kStdin);
  if (dup2(out, 1) < 0) fail(Stage::kStdout);
  if (dup2(err, 2) < 0) fail(Stage::kStderr);
  // Nothing of the daemon's (sockets, files) may leak into the job; the error
  // pipe closes itself at exec.
  if (error_fd > 3) close_range(3, error_fd - 1, 0);
  close_range(error_fd + 1, ~0U, 0);
  execve(spec.program.c_str(), argv, envp);
  // ETXTBSY: another job's child, forked while this script was being written,
  // still holds its descriptor until that child execs (O_CLOEXEC closes it then).
  // The window is a few microseconds; wait it out rather than fail the job.
  for (int attempt = 0; errno == ETXTBSY && attempt < 200; ++attempt) {
    usleep(5000);
    execve(spec.program.c_str(), argv, envp);
  }
  fail(Stage::kExec);
  _exit(127);  // Not reached.
}

}  // namespace

bool EnterRuntimeMountNamespace() {
  if (unshare(CLONE_NEWNS) != 0) return false;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) return false;
  (void)umount2("/sys/fs/cgroup/unified", MNT_DETACH);  // Only there on a hybrid host
  return true;
}

mode_t UmaskFromEnvironment(const std::vector<std::string>& env) {
  constexpr std::string_view kName = "SLURM_UMASK=";
  for (const std::string& var : env) {
    if (!var.starts_with(kName)) continue;
    const std::string_view digits = std::string_view(var).substr(kName.size());
    if (digits.empty() || digits.size() > 4) return 022;
    mode_t mask = 0;
    for (char c : digits) {
      if (c < '0' || c > '7') return 022;
      mask = mask * 8 + static_cast<mode_t>(c - '0');
    }
    return mask & 0777;
  }
  return 022;
}

void ApplySoftLimits(const std::vector<SoftLimit>& limits) {
  for (const SoftLimit& limit : limits) {
    const auto resource = static_cast<__rlimit_resource_t>(limit.resource);
    rlimit r{};
    if (getrlimit(resource, &r) != 0) continue;
    r.rlim_cur = limit.value == UINT64_MAX ? RLIM_INFINITY : static_cast<rlim_t>(limit.value);
    // Above the hard limit setrlimit refuses (EINVAL): the node's limit stays.
    (void)setrlimit(resource, &r);
  }
}

Result<std::vector<gid_t>> GroupsOf(const std::string& user, gid_t gid) {
  int n = 64;
  std::vector<gid_t> groups(n);
  while (getgrouplist(user.c_str(), gid, groups.data(), &n) < 0) {
    if (n <= static_cast<int>(groups.size())) return NotFound("unknown user " + user);
    groups.resize(n);
  }
  groups.resize(n);
  return groups;
}

Result<pid_t> SpawnJobProcess(const JobProcessSpec& spec, const BeforeExec& before_exec) {
  int release[2];
  int error[2];
  if (pipe2(release, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(error, O_CLOEXEC) != 0) {
    close(release[0]);
    close(release[1]);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  // The child's stdio is dup'ed onto 0-2; keep its error pipe clear of them.
  if (error[1] <= 2) {
    int moved = fcntl(error[1], F_DUPFD_CLOEXEC, 3);
    close(error[1]);
    error[1] = moved;
  }
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);

  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {release[0], release[1], error[0], error[1]}) close(fd);
    return Internal(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(release[1]);
    close(error[0]);
    RunChild(spec, release[0], error[1], argv.data(), envp.data());
  }
  close(release[0]);
  close(error[1]);

  Status ready = before_exec ? before_exec(pid) : Status::Ok();
  if (ready.ok()) {
    char go = 1;
    if (write(release[1], &go, 1) != 1) ready = Internal("cannot release the job's process");
  }
  close(release[1]);  // Without the byte, the child gives up.

  ChildFailure failure{};
  ssize_t n;
  do {
    n = read(error[0], &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  close(error[0]);
  if (ready.ok() && n == 0) return pid;  // The exec closed the pipe: the script runs.

  int status;
  if (!ready.ok()) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ready.ok()) return ready;
  if (n != static_cast<ssize_t>(sizeof failure)) return Internal("the job's process vanished");
  return FailedPrecondition(Describe(failure, spec));
}

}  // namespace rota::noded
