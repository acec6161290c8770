#include "noded/container/user_process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rota::noded::container {
namespace {

constexpr size_t kMaxOutput = 64 * 1024;

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The child's side: system calls only (the parent has other threads).
[[noreturn]] void RunChild(int out_fd, const UserIdentity& user, char* const* argv,
                           char* const* envp) {
  auto fail = [out_fd](const char* what) {
    (void)!write(out_fd, what, std::strlen(what));
    _exit(126);
  };
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
  setsid();  // Its own process group: a timeout kills what it started too.
  if (getuid() == 0) {
    if (setgroups(user.groups.size(), user.groups.data()) != 0) fail("setgroups failed\n");
    if (setgid(user.gid) != 0) fail("setgid failed\n");
    if (setuid(user.uid) != 0) fail("setuid failed\n");
  } else if (user.uid != geteuid()) {
    fail("only root can import an image for another user\n");
  }
  if (chdir("/") != 0) fail("cannot enter /\n");
  umask(022);
  int in = open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, 0);
  dup2(out_fd, 1);
  dup2(out_fd, 2);
  close_range(3, ~0U, 0);
  execve(argv[0], argv, envp);
  (void)!write(2, "cannot execute ", 15);
  (void)!write(2, argv[0], std::strlen(argv[0]));
  (void)!write(2, "\n", 1);
  _exit(127);
}

}  // namespace

CapturedRun RunCapturedAs(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment, const UserIdentity& user,
                          std::chrono::milliseconds timeout) {
  CapturedRun run;
  std::vector<std::string> argv_text = argv;
  std::vector<std::string> env_text = environment;
  std::vector<char*> args = CStrings(argv_text);
  std::vector<char*> envp = CStrings(env_text);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    run.start_error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  pid_t pid = fork();
  if (pid < 0) {
    run.start_error = std::string("fork: ") + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    return run;
  }
  if (pid == 0) {
    close(out[0]);
    RunChild(out[1], user, args.data(), envp.data());
  }
  close(out[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 60'000))) <= 0) continue;
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // Every writer closed it: the program (and its children) are done.
    if (run.output.size() < kMaxOutput) run.output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (run.timed_out) kill(-pid, SIGKILL);
  while (waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

}  // namespace rota::noded::container
