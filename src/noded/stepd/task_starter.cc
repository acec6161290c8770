#include "noded/stepd/task_starter.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

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

// NAME -> NAME=value.
std::map<std::string, std::string> ByName(const std::vector<std::string>& env) {
  std::map<std::string, std::string> by_name;
  for (const std::string& entry : env) by_name[entry.substr(0, entry.find('='))] = entry;
  return by_name;
}

}  // namespace

std::vector<std::string> TaskStarterCommand(const std::string& prolog,
                                            const std::string& container_config) {
  std::vector<std::string> command = {TaskStarterProgram()};
  if (!container_config.empty()) command.push_back("--container-config=" + container_config);
  command.push_back(prolog);
  return command;
}

Status PassVariablesIntoContainer(const std::string& config_path,
                                  const std::vector<std::string>& before,
                                  const std::vector<std::string>& after) {
  const std::map<std::string, std::string> was = ByName(before);
  const std::map<std::string, std::string> now = ByName(after);
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
  for (const auto& [name, entry] : now) {
    auto it = was.find(name);
    if (it == was.end() || it->second != entry) set[name] = entry;
  }
  for (const auto& [name, entry] : was) {
    if (!now.contains(name)) unset.push_back(name);
  }
  if (set.empty() && unset.empty()) return Status::Ok();

  nlohmann::json config = nlohmann::json::parse(std::ifstream(config_path), nullptr, false);
  if (config.is_discarded() || !config.is_object() || !config["process"].is_object()) {
    return InvalidArgument(config_path + " is not a container's configuration");
  }
  nlohmann::json& env = config["process"]["env"];
  nlohmann::json kept = nlohmann::json::array();
  if (env.is_array()) {
    for (const nlohmann::json& entry : env) {
      if (!entry.is_string()) continue;
      const std::string text = entry.get<std::string>();
      const std::string name = text.substr(0, text.find('='));
      if (set.contains(name) || std::find(unset.begin(), unset.end(), name) != unset.end()) {
        continue;
      }
      kept.push_back(text);
    }
  }
  for (const auto& [name, entry] : set) kept.push_back(entry);
  env = std::move(kept);
  const std::string written = config_path + ".prolog";
  {
    std::ofstream out(written, std::ios::trunc);
    out << config.dump(1);
    if (!out) return IoError("cannot write " + written + ": " + std::strerror(errno));
  }
  if (rename(written.c_str(), config_path.c_str()) != 0) {
    return IoError("cannot replace " + config_path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

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
                         std::vector<std::string> env, const std::string& container_config) {
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
  const std::vector<std::string> before = env;
  WriteAll(1, ApplyTaskPrologOutput(run->output, env));
  if (!container_config.empty()) {
    if (Status passed = PassVariablesIntoContainer(container_config, before, env); !passed.ok()) {
      WriteAll(2, "rotad: error: the TaskProlog's variables cannot be passed into the container: " +
                      std::string(passed.message()) + "\n");
      return 1;
    }
  }
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
