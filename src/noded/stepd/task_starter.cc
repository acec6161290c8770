#include "noded/stepd/task_starter.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "noded/stepd/task_prolog_output.h"

namespace rota::noded {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void SetVariable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
  env.push_back(name + "=" + value);
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string TaskStarterProgram() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "rota-task").string();
}

Result<TaskPrologRun> RunTaskProlog(const std::string& program, std::vector<std::string> env) {
  SetVariable(env, "SLURM_TASK_PID", std::to_string(getpid()));
  SetVariable(env, "SLURM_SCRIPT_CONTEXT", "prolog_task");
  std::vector<std::string> argv_text{program};
  std::vector<char*> argv = CStrings(argv_text);
  std::vector<char*> envp = CStrings(env);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close(out[0]);
    close(out[1]);
    return Internal(std::string("fork: ") + std::strerror(saved));
  }
  if (pid == 0) {
    // The task's stdin (srun's input, a terminal) is the task's, not the prolog's.
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out[1], 1);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(out[1]);
  TaskPrologRun run;
  char buf[4096];
  for (;;) {
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    run.output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return run;
}

int StartTaskAfterProlog(const std::string& prolog, const std::vector<std::string>& command,
                         std::vector<std::string> env) {
  if (command.empty()) {
    WriteAll(2, "rotad: error: no command to run after the TaskProlog\n");
    return 2;
  }
  Result<TaskPrologRun> run = RunTaskProlog(prolog, env);
  if (!run.ok()) {
    WriteAll(2, "rotad: error: cannot run TaskProlog " + prolog + ": " +
                    std::string(run.status().message()) + "\n");
    return 1;
  }
  // As in Slurm, a failed TaskProlog fails the task with its status, and what
  // it printed is not acted on.
  if (run->exit_code != 0) {
    WriteAll(2, "rotad: error: TaskProlog " + prolog + " failed with status " +
                    std::to_string(run->exit_code) + "\n");
    return run->exit_code;
  }
  WriteAll(1, ApplyTaskPrologOutput(run->output, env));
  std::vector<std::string> argv_text = command;
  std::vector<char*> argv = CStrings(argv_text);
  std::vector<char*> envp = CStrings(env);
  // execvp searches the PATH of `environ`: the task's, as the prolog left it.
  char** const own_environ = environ;
  environ = envp.data();
  execvp(argv[0], argv.data());
  const int saved = errno;
  environ = own_environ;  // `envp` goes with this frame.
  WriteAll(2, "rotad: error: cannot execute " + command[0] + ": " + std::strerror(saved) + "\n");
  return saved == ENOENT ? 127 : 126;
}

}  // namespace rota::noded
