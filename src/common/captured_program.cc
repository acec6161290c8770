#include "common/captured_program.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rota {
namespace {

constexpr size_t kMaxOutput = 64 * 1024;

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

CapturedRun RunCaptured(const std::vector<std::string>& argv,
                        const std::vector<std::string>& environment,
                        std::chrono::milliseconds timeout, const CapturedIdentity* as) {
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
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    setsid();  // Its own process group: a timeout kills what it started too.
    if (as != nullptr) {
      auto fail = [&](const char* what) {
        (void)!write(out[1], what, std::strlen(what));
        _exit(126);
      };
      if (getuid() == 0) {
        if (setgroups(as->groups.size(), as->groups.data()) != 0) fail("setgroups failed\n");
        if (setgid(as->gid) != 0) fail("setgid failed\n");
        if (setuid(as->uid) != 0) fail("setuid failed\n");
      } else if (as->uid != geteuid()) {
        fail("only root runs a program as another user\n");
      }
      if (chdir("/") != 0) fail("cannot enter /\n");
      umask(022);
    }
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    close_range(3, ~0U, 0);
    execve(args[0], args.data(), envp.data());
    _exit(127);
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
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;  // The loop head decides
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // Every writer closed it: the program (and its children) are done
    if (run.output.size() < kMaxOutput) run.output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (run.timed_out) kill(-pid, SIGKILL);
  while (waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

}  // namespace rota
