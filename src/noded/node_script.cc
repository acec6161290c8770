#include "noded/node_script.h"

#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "common/strings.h"

namespace rota::noded {
namespace {

std::string FirstLine(const std::string& output) {
  for (std::string_view line : Split(output, '\n')) {
    std::string_view t = Trim(line);
    if (!t.empty()) return std::string(t.substr(0, 200));
  }
  return "";
}

}  // namespace

ScriptOutcome RunNodeScript(const std::string& program, const std::vector<std::string>& environment,
                            std::chrono::seconds timeout, std::string_view what) {
  const std::string name(what);
  std::vector<char*> envp;
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {false, name + ": cannot create a pipe"};
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return {false, name + ": cannot fork"};
  }
  if (pid == 0) {
    setsid();  // Its own group, so a timeout kills everything it started.
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
    execve(program.c_str(), argv, envp.data());
    _exit(127);
  }
  close(out[1]);
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready <= 0) continue;  // Interrupted or the deadline: the loop head decides.
    char buf[4096];
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the script (and its children) closed the pipe.
    if (output.size() < 65536) output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return {false, name + " timed out"};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  std::string line = FirstLine(output);
  if (!line.empty()) return {false, line};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return {false, name + " could not be run"};
  return {false, WIFEXITED(status)
                     ? name + " exited with status " + std::to_string(WEXITSTATUS(status))
                     : name + " killed by signal " + std::to_string(WTERMSIG(status))};
}

std::vector<std::string> ExpandScriptPattern(const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) return {pattern};
  std::vector<std::string> paths;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return paths;  // Sorted by glob: the order an administrator expects.
}

}  // namespace rota::noded
