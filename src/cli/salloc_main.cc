// salloc: obtains an allocation, runs a command in it (default: the user's
// shell) with the job's SLURM_* variables, and gives the allocation back when
// the command exits. The allocation is held on the controller's side by a
// small placeholder script that runs as the job's batch step until salloc
// tells it (SIGUSR1 to the batch step only) to end, so the job ends COMPLETED
// and its node daemons clean up as for any job (docs/steps.md).
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

#include "api/methods.h"
#include "cli/controller_client.h"
#include "cli/job_options.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "model/job_state.h"
#include "rota.pb.h"

extern char** environ;

namespace {

// Holds the allocation: waits, interruptibly, until SIGUSR1 ends it with 0.
constexpr const char* kHolderScript =
    "#!/bin/sh\n"
    "trap 'exit 0' USR1\n"
    "while :; do sleep 60 & wait $!; done\n";

volatile sig_atomic_t release_requested = 0;
void OnTerminate(int) { release_requested = 1; }

// The job once it runs (or ends first); nullopt when the controller fails us.
std::optional<rota::wire::JobRecord> WaitUntilRunning(rota::cli::ControllerClient& client,
                                                      uint32_t job_id) {
  bool told_waiting = false;
  auto delay = std::chrono::milliseconds(20);
  while (release_requested == 0) {
    rota::wire::ListJobsRequest req;
    req.add_job_ids(std::to_string(job_id));
    rota::wire::ListJobsResponse resp;
    rota::Status s = client.Call(rota::api::kListJobs, req, &resp);
    if (!s.ok()) {
      std::cerr << "salloc: error: " << s.message() << "\n";
      return std::nullopt;
    }
    if (resp.jobs_size() == 1) {
      const rota::wire::JobRecord& job = resp.jobs(0);
      if (job.state() == rota::wire::JOB_STATE_RUNNING || rota::model::IsFinished(job.state())) {
        return job;
      }
      if (!told_waiting && job.state() == rota::wire::JOB_STATE_PENDING) {
        std::cerr << "salloc: job " << job_id << " queued and waiting for resources\n";
        told_waiting = true;
      }
    }
    std::this_thread::sleep_for(delay);
    delay = std::min<std::chrono::milliseconds>(delay * 2, std::chrono::milliseconds(500));
  }
  return std::nullopt;
}

void Release(rota::cli::ControllerClient& client, uint32_t job_id, bool cancel) {
  rota::wire::SignalJobsRequest req;
  req.add_job_ids(std::to_string(job_id));
  if (!cancel) {
    req.set_signal(SIGUSR1);
    req.set_batch_only(true);
  }
  rota::wire::SignalJobsResponse resp;
  rota::Status s = client.Call(rota::api::kSignalJobs, req, &resp);
  if (!s.ok())
    std::cerr << "salloc: error: releasing job " << job_id << ": " << s.message() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
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
    std::cout << "rota 0.1.0 (slurm 22.05 compatible)\n";
    return 0;
  }
  for (const std::string& w : parsed->warnings) std::cerr << w << "\n";
  std::vector<std::string> command = parsed->positional;
  if (command.empty()) {
    const char* shell = std::getenv("SHELL");
    command.push_back(shell != nullptr && *shell != '\0' ? shell : "/bin/sh");
  }

  rota::wire::JobSpec spec = parsed->spec;
  spec.set_script(kHolderScript);
  spec.clear_argv();
  if (spec.name().empty()) spec.set_name(command[0].substr(command[0].rfind('/') + 1));
  if (spec.std_out().empty()) spec.set_std_out("/dev/null");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  spec.set_submit_host(host);

  auto client = rota::cli::ControllerClient::Create(rota::conf::DefaultSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "salloc: error: " << client.status().message() << "\n";
    return 1;
  }
  rota::wire::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  rota::wire::SubmitJobResponse response;
  rota::Status s = (*client)->Call(rota::api::kSubmitJob, request, &response);
  if (!s.ok()) {
    std::cerr << "salloc: error: Job submit/allocate failed: " << s.message() << "\n";
    return 1;
  }
  const uint32_t job_id = response.job_id();
  std::cerr << "salloc: Pending job allocation " << job_id << "\n";
  signal(SIGTERM, OnTerminate);
  signal(SIGHUP, OnTerminate);
  std::optional<rota::wire::JobRecord> job = WaitUntilRunning(**client, job_id);
  if (!job || job->state() != rota::wire::JOB_STATE_RUNNING) {
    if (!job) Release(**client, job_id, /*cancel=*/true);
    std::cerr << "salloc: error: Job allocation " << job_id << " has been revoked.\n";
    return 1;
  }
  std::cerr << "salloc: Granted job allocation " << job_id << "\n";

  // The command's environment: ours, plus the job's variables.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  auto set = [&env](const std::string& name, const std::string& value) {
    for (std::string& e : env) {
      if (e.rfind(name + "=", 0) == 0) {
        e = name + "=" + value;
        return;
      }
    }
    env.push_back(name + "=" + value);
  };
  std::vector<std::string> nodes(job->nodes().begin(), job->nodes().end());
  const std::string nodelist = rota::CompressHostlist(nodes);
  set("SLURM_JOB_ID", std::to_string(job_id));
  set("SLURM_JOBID", std::to_string(job_id));
  set("SLURM_JOB_NAME", job->spec().name());
  set("SLURM_JOB_NODELIST", nodelist);
  set("SLURM_NODELIST", nodelist);
  set("SLURM_JOB_NUM_NODES", std::to_string(nodes.size()));
  set("SLURM_NNODES", std::to_string(nodes.size()));
  set("SLURM_JOB_PARTITION", job->spec().partition());
  set("SLURM_CLUSTER_NAME", response.cluster());
  set("SLURM_SUBMIT_DIR", context.cwd);
  set("SLURM_SUBMIT_HOST", host);
  const rota::wire::JobSpec& js = job->spec();
  if (js.num_tasks() != 0) {
    set("SLURM_NTASKS", std::to_string(js.num_tasks()));
    set("SLURM_NPROCS", std::to_string(js.num_tasks()));
  }
  if (js.ntasks_per_node() != 0) set("SLURM_NTASKS_PER_NODE", std::to_string(js.ntasks_per_node()));
  if (js.cpus_per_task() != 0) set("SLURM_CPUS_PER_TASK", std::to_string(js.cpus_per_task()));
  if (!js.gpus_per_task().empty()) set("SLURM_GPUS_PER_TASK", js.gpus_per_task());

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
  Release(**client, job_id, /*cancel=*/false);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
