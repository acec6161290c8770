#include "ctld/server/controller_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rota::ctld {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ProgramOutcome RunControllerProgram(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& environment,
                                    std::chrono::seconds timeout) {
  ProgramOutcome outcome;
  // Everything the child needs is made before fork: the daemon has other
  // threads, whose locks the child may have copied.
  std::vector<std::string> argv_text = argv;
  std::vector<std::string> env_text = environment;
  std::vector<char*> args = CStrings(argv_text);
  std::vector<char*> envp = CStrings(env_text);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    outcome.problem = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  pid_t pid = fork();
  if (pid < 0) {
    outcome.problem = std::string("fork: ") + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    return outcome;
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    setsid();  // Its own process group: a timeout kills what it started too.
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
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // Every writer closed it: the program (and its children) are done
    if (outcome.output.size() < 64 * 1024) outcome.output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
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
