// salloc: obtains an allocation (cli/submit/allocation.h), runs a command in it
// (default: the user's shell) with the job's SLURM_* variables, and gives the
// allocation back when the command exits. With --no-shell it prints the job id
// and leaves the allocation to its time limit or scancel (docs/steps.md).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/cluster_option.h"
#include "cli/slurm_version.h"
#include "cli/submit/allocation.h"
#include "cli/submit/container_options.h"
#include "cli/submit/job_options.h"
#include "conf/config_loader.h"
#include "rota.pb.h"

extern char** environ;

namespace {

volatile sig_atomic_t release_requested = 0;
void OnTerminate(int) { release_requested = 1; }

}  // namespace

int main(int argc, char** argv) {
  rota::cli::ExportUmask();
  rota::cli::JobOptionsContext context;
  context.env = rota::cli::EnvironmentFromEnvp(environ);
  char cwd[PATH_MAX];
  context.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
  context.now = static_cast<int64_t>(std::time(nullptr));
  rota::cli::JobOptionSources sources;
  sources.command_line.assign(argv + 1, argv + argc);
  auto parsed = rota::cli::ParseJobOptions(rota::cli::Command::kSalloc, sources, context);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 1;
  }
  if (parsed->help || parsed->usage) {
    std::cout << "Usage: salloc [OPTIONS...] [command [args...]]\n";
    return 0;
  }
  if (parsed->version) {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  for (const std::string& w : parsed->warnings) std::cerr << w << "\n";
  std::vector<std::string> command = parsed->positional;
  if (command.empty()) {
    const char* shell = std::getenv("SHELL");
    command.push_back(shell != nullptr && *shell != '\0' ? shell : "/bin/sh");
  }

  rota::wire::JobSpec spec = parsed->spec;
  rota::cli::MakeAllocationSpec(spec, command[0].substr(command[0].rfind('/') + 1));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  spec.set_submit_host(host);

  if (!parsed->clusters.empty()) {
    if (rota::Status s =
            rota::cli::CheckClusterOption(parsed->clusters, rota::cli::CommandSlurmConfPath());
        !s.ok()) {
      std::cerr << "salloc: error: " << s.message() << "\n";
      return 1;
    }
  }
  auto client = rota::cli::ControllerClient::Create(rota::cli::CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "salloc: error: " << client.status().message() << "\n";
    return 1;
  }
  signal(SIGTERM, OnTerminate);
  signal(SIGHUP, OnTerminate);
  auto allocation = rota::cli::Allocate(**client, spec, rota::cli::AllocationVoice::kSalloc,
                                        &release_requested, parsed->immediate_s);
  if (!allocation.ok()) {
    std::cerr << allocation.status().message() << "\n";
    return 1;
  }
  const uint32_t job_id = allocation->job_id;
  // --no-shell: the allocation stays until its time limit or scancel.
  if (parsed->no_shell) return 0;

  // The command's environment: ours, plus the job's variables.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto& [name, value] : rota::cli::AllocationVariables(*allocation, context.cwd, host)) {
    rota::cli::SetVariable(env, name, value);
  }
  // pyxis' options: srun in the allocation runs its steps in the container.
  for (const auto& [name, value] : rota::cli::ContainerSpankEnvironment(spec.container())) {
    rota::cli::SetVariable(env, name, value);
  }
  // --container: srun takes SLURM_CONTAINER as its own --container.
  if (!spec.container().bundle().empty()) {
    rota::cli::SetVariable(env, "SLURM_CONTAINER", spec.container().bundle());
  }

  int status = 1 << 8;
  if (release_requested == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      signal(SIGTERM, SIG_DFL);
      signal(SIGHUP, SIG_DFL);
      std::vector<char*> args;
      for (std::string& a : command) args.push_back(a.data());
      args.push_back(nullptr);
      std::vector<char*> envp;
      for (std::string& e : env) envp.push_back(e.data());
      envp.push_back(nullptr);
      environ = envp.data();
      execvp(args[0], args.data());
      std::cerr << "salloc: error: " << command[0] << ": " << std::strerror(errno) << "\n";
      _exit(127);
    }
    // An interactive shell handles ^C itself; salloc outlives it.
    signal(SIGINT, SIG_IGN);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      if (release_requested != 0) kill(pid, SIGHUP);
    }
  }
  std::cerr << "salloc: Relinquishing job allocation " << job_id << "\n";
  rota::cli::ReleaseAllocation(**client, job_id, /*cancel=*/false, /*quiet=*/false, "salloc");
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
