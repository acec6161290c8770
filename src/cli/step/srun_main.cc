// srun: runs a parallel job step inside an allocation (SLURM_JOB_ID; outside
// one it first gets an allocation as salloc does, cli/submit/allocation.h). Asks the
// controller for step JOBID.N, asks each of the step's node daemons to start
// its tasks, prints what they write as it streams back (or srun's -o file),
// and forwards its stdin to the tasks -i names (docs/steps.md). With --pty,
// task 0 runs on a pseudo-terminal of its own and srun's terminal is raw
// meanwhile (cli/step/raw_terminal.h). Exits with the highest task exit code
// (128+signal when tasks only died of signals).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "cli/client/config_source.h"
#include "cli/client/controller_client.h"
#include "cli/client/node_caller.h"
#include "cli/cluster_option.h"
#include "cli/slurm_version.h"
#include "cli/step/mpi_type.h"
#include "cli/step/multi_prog.h"
#include "cli/step/node_launches.h"
#include "cli/step/raw_terminal.h"
#include "cli/step/srun_io_relay.h"
#include "cli/step/srun_options.h"
#include "cli/step/srun_plan.h"
#include "cli/step/step_usage_tally.h"
#include "cli/submit/allocation.h"
#include "cli/submit/job_options.h"
#include "cli/submit/propagated_limits.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "step_rpc.pb.h"

extern char** environ;

namespace rota::cli {
namespace {

int signal_pipe[2] = {-1, -1};

volatile sig_atomic_t give_up = 0;
void OnGiveUp(int) { give_up = 1; }

void OnSignal(int sig) {
  unsigned char s = static_cast<unsigned char>(sig);
  (void)!write(signal_pipe[1], &s, 1);
}

void Usage() {
  std::cout << "Usage: srun [OPTIONS] executable [args...]\n"
               "  -n, --ntasks=N             number of tasks\n"
               "  -N, --nodes=N              number of nodes\n"
               "      --ntasks-per-node=N    tasks on each node\n"
               "  -c, --cpus-per-task=N      CPUs for each task\n"
               "      --gpus-per-task=N      GPUs for each task (each its own)\n"
               "      --gpu-bind=[verbose,]closest|single:N|map_gpu:L|mask_gpu:L|none\n"
               "      --cpu-bind=[verbose,]none|cores|threads|sockets|rank|map_cpu:L|mask_cpu:L\n"
               "      --mem=MB, --mem-per-cpu=MB  memory the step holds on each node / per CPU\n"
               "      --gres=gpu:N, -G, --gpus=N  GPUs the step holds on each node / in all\n"
               "      --overlap              share the allocation's resources with other steps\n"
               "  -l, --label                prefix output lines with the task id\n"
               "  -o, --output=mode          all, none, a task id or a file name pattern\n"
               "  -e, --error=mode           as --output, for standard error\n"
               "  -i, --input=mode           all, none, a task id (default 0) or a file\n"
               "      --open-mode=append|truncate\n"
               "  -K, --kill-on-bad-exit     end the step when a task exits non-zero\n"
               "  -W, --wait=secs            end the step secs after its first task ends\n"
               "      --mpi=none|pmi2|pmix|list  PMI-2 or PMIx for MPI tasks, or none\n"
               "      --pty                  run task 0 in a pseudo-terminal\n"
               "  -J, --job-name=name        name of the step\n"
               "      --jobid=id             run inside this job's allocation\n";
}

// The address of this host that faces `host` (the route the kernel would
// take; a UDP "connect" sends nothing), or "" when there is none.
std::string LocalAddressToward(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return "";
  }
  std::string out;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  char text[INET_ADDRSTRLEN] = {};
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
      inet_ntop(AF_INET, &local.sin_addr, text, sizeof text) != nullptr) {
    out = text;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return out;
}

// The address the node daemons reach srun at: the address of the node srun
// runs on (SLURMD_NODENAME), else this host's address toward the controller
// (a login host: the nodes are on the controller's side), else loopback.
std::string IoHost(const conf::ClusterConfig& config) {
  if (const char* me = std::getenv("SLURMD_NODENAME"); me != nullptr) {
    if (const conf::NodeConfig* n = config.FindNode(me); n != nullptr && !n->address.empty()) {
      return n->address;
    }
  }
  if (!config.settings.controllers.empty()) {
    const conf::ControllerHost& ctl = config.settings.controllers.front();
    std::string local = LocalAddressToward(ctl.address.empty() ? ctl.name : ctl.address,
                                           config.settings.slurmctld_port);
    if (!local.empty()) return local;
  }
  return "127.0.0.1";
}

// Asks for the step until the job's other steps leave room for it, as
// Slurm's srun does ("Step creation temporarily disabled, retrying"). ^C
// while waiting gives up.
Status CreateStepWhenFree(ControllerClient& client, const wire::CreateStepRequest& create,
                          wire::CreateStepResponse* created) {
  give_up = 0;
  auto previous = signal(SIGINT, OnGiveUp);
  auto previous_term = signal(SIGTERM, OnGiveUp);
  bool waited = false;
  auto delay = std::chrono::milliseconds(100);
  Status s;
  while (true) {
    s = client.Call(api::kCreateStep, create, created);
    if (s.code() != StatusCode::kFailedPrecondition || give_up) break;
    if (!waited) {
      std::cerr << "srun: Job " << create.job_id()
                << " step creation temporarily disabled, retrying (" << s.message() << ")\n";
      waited = true;
    }
    // Steps end when their srun says so; asking again soon finds out.
    for (auto slept = std::chrono::milliseconds(0); slept < delay && !give_up;
         slept += std::chrono::milliseconds(20)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (give_up) {
      s = Status(StatusCode::kFailedPrecondition, "Job step creation cancelled");
      break;
    }
    delay = std::min<std::chrono::milliseconds>(delay * 2, std::chrono::seconds(1));
  }
  signal(SIGINT, previous);
  signal(SIGTERM, previous_term);
  if (s.ok() && waited) {
    std::cerr << "srun: Step created for StepId=" << created->step().job_id() << "."
              << created->step().step_id() << "\n";
  }
  return s;
}

// Tells the controller the step ended with `wait_status`, with what its
// tasks used when their nodes measured it.
void TellStepEnded(ControllerClient& client, const wire::JobStepRecord& step, uint32_t wait_status,
                   const StepUsageTally& usage, bool out_of_memory) {
  wire::StepEndedRequest ended;
  ended.set_job_id(step.job_id());
  ended.set_step_id(step.step_id());
  ended.set_wait_status(wait_status);
  if (wire::StepUsage summary = usage.Summary(); summary.tasks() > 0 || summary.user_cpu_us() > 0 ||
                                                 summary.system_cpu_us() > 0 ||
                                                 summary.gpu().samples() > 0) {
    *ended.mutable_usage() = std::move(summary);
  }
  ended.set_out_of_memory(out_of_memory);
  wire::Empty none;
  client.Call(api::kStepEnded, ended, &none).ok();
}

// Signals srun gets reach the relay's loop through signal_pipe; it forwards
// them to the tasks.
void ForwardSignalsToRelay(bool pty) {
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, OnSignal);
    if (pty) signal(SIGWINCH, OnSignal);
  }
  signal(SIGPIPE, SIG_IGN);
}

// LaunchRequestFor with what is known only now: srun's environment and
// working directory, where its relay listens, and its terminal's size.
wire::LaunchTasksRequest LaunchFor(
    const SrunOptions& options, const conf::ClusterConfig& config, const wire::JobStepRecord& step,
    const std::vector<std::pair<std::string, std::string>>& extra_env, const std::string& io_host,
    const SrunIoRelay& relay) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  std::string mpi_warning;
  wire::LaunchTasksRequest launch = LaunchRequestFor(options, config, step.job_id(), step.step_id(),
                                                     std::move(env), extra_env, &mpi_warning);
  if (!mpi_warning.empty()) std::cerr << "srun: warning: " << mpi_warning << "\n";
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) launch.set_work_dir(cwd);
  launch.set_io_host(io_host);
  launch.set_io_port(relay.port());
  launch.set_io_key(relay.key());
  // --pty: the task's terminal starts with the size of srun's.
  if (options.pty) {
    std::optional<WindowSize> window = TerminalWindowSize(0);
    if (!window) window = TerminalWindowSize(1);
    if (window) {
      launch.mutable_window()->set_rows(window->rows);
      launch.mutable_window()->set_cols(window->cols);
    }
  }
  return launch;
}

// The step from its creation to its end: the launch on its nodes
// (node_launches.h) and the relay of its I/O (srun_io_relay.h) run side by
// side until the tasks have ended.
int Run(const SrunOptions& options, ControllerClient* given_client,
        const std::vector<std::pair<std::string, std::string>>& extra_env) {
  std::unique_ptr<ControllerClient> own_client;
  if (given_client == nullptr) {
    auto made = ControllerClient::Create(CommandSlurmConfPath());
    if (!made.ok()) {
      std::cerr << "srun: error: " << made.status().message() << "\n";
      return 1;
    }
    own_client = std::move(made).value();
    given_client = own_client.get();
  }
  ControllerClient* client = given_client;
  const conf::ClusterConfig& config = client->config();

  const wire::CreateStepRequest create = StepRequestFor(options);
  wire::CreateStepResponse created;
  Status s = CreateStepWhenFree(*client, create, &created);
  if (!s.ok()) {
    std::cerr << "srun: error: Unable to create step for job " << options.job_id << ": "
              << s.message() << "\n";
    return 1;
  }
  const wire::JobStepRecord& step = created.step();
  if (options.verbose > 0) {
    std::cerr << "srun: jobid " << step.job_id() << ": step " << step.step_id() << ", "
              << step.num_tasks() << " task(s) on " << step.nodes_size() << " node(s)\n";
  }

  std::optional<SrunStreams> streams = OpenOutputFiles(options, created);
  if (!streams) {
    TellStepEnded(*client, step, 1u << 8, StepUsageTally(), false);
    return 1;
  }
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(config));
  if (!issuer.ok()) {
    std::cerr << "srun: error: " << issuer.status().message() << "\n";
    return 1;
  }
  NodeCaller nodes(config, **issuer);
  const std::string io_host = IoHost(config);
  Result<std::unique_ptr<SrunIoRelay>> relay =
      SrunIoRelay::Listen(io_host, options, step, *streams);
  if (!relay.ok()) {
    std::cerr << "srun: error: " << relay.status().message() << "\n";
    TellStepEnded(*client, step, 1u << 8, StepUsageTally(), false);
    return 1;
  }
  ForwardSignalsToRelay(options.pty);

  NodeLaunches launches(nodes, step);
  launches.Start(LaunchFor(options, config, step, extra_env, io_host, **relay));
  const StepOutcome outcome = (*relay)->Run(launches, signal_pipe[0]);
  launches.Join();
  relay->reset();

  const StepEnding ending = StepEndingOf(outcome);
  for (const std::string& line : ending.task_errors) std::cerr << line << "\n";
  CloseOutputFiles(*streams);
  TellStepEnded(*client, step, ending.wait_status, outcome.usage, !outcome.out_of_memory.empty());
  return ending.exit_code;
}

// srun outside an allocation: gets one with the same options (as salloc
// would), runs the step in it and gives it back.
int RunInNewAllocation(SrunOptions options, const std::vector<std::string>& args) {
  JobOptionsContext context;
  context.env = EnvironmentFromEnvp(environ);
  char cwd[4096];
  context.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
  context.now = static_cast<int64_t>(std::time(nullptr));
  JobOptionSources sources;
  sources.command_line = args;
  auto parsed = ParseJobOptions(Command::kSrun, sources, context);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 1;
  }
  wire::JobSpec spec = parsed->spec;
  MakeAllocationSpec(spec, options.command[0].substr(options.command[0].rfind('/') + 1));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  spec.set_submit_host(host);
  if (!parsed->clusters.empty()) {
    if (Status s = CheckClusterOption(parsed->clusters, CommandSlurmConfPath()); !s.ok()) {
      std::cerr << "srun: error: " << s.message() << "\n";
      return 1;
    }
  }
  auto client = ControllerClient::Create(CommandSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "srun: error: " << client.status().message() << "\n";
    return 1;
  }
  // ^C or a termination signal while waiting gives the request up.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, OnGiveUp);
  auto allocation = Allocate(**client, spec, AllocationVoice::kSrun, &give_up, parsed->immediate_s);
  if (!allocation.ok()) {
    std::cerr << allocation.status().message() << "\n";
    return 1;
  }
  options.job_id = allocation->job_id;
  int code = Run(options, client->get(), AllocationVariables(*allocation, context.cwd, host));
  // Already over when it was cancelled; then there is nothing to give back.
  ReleaseAllocation(**client, allocation->job_id, /*cancel=*/false, /*quiet=*/true, "srun");
  return code;
}

// --multi-prog: the command is the configuration file; every task runs the
// command made of it. The step is named after the file, as the command's
// program would name it.
Status UseMultiProgFile(SrunOptions& options) {
  const std::string& path = options.command[0];
  std::ifstream in(path);
  if (!in) return InvalidArgument("Unable to open configuration file " + path);
  std::stringstream text;
  text << in.rdbuf();
  Result<std::vector<std::string>> command = MultiProgCommand(text.str(), path, options.num_tasks);
  if (!command.ok()) return command.status();
  if (options.job_name.empty()) options.job_name = path.substr(path.rfind('/') + 1);
  options.command = std::move(*command);
  return Status::Ok();
}

}  // namespace
}  // namespace rota::cli

int main(int argc, char** argv) {
  using namespace rota::cli;
  ExportUmask();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = ParseSrunOptions(args, EnvironmentFromEnvp(environ));
  if (!options.ok()) {
    std::cerr << options.status().message() << "\n";
    return 1;
  }
  for (const std::string& w : options->warnings) std::cerr << w << "\n";
  if (options->mpi == "list") {
    std::cout << kMpiTypeList;
    return 0;
  }
  if (options->help || options->usage) {
    Usage();
    return 0;
  }
  if (options->version) {
    std::cout << rota::cli::kSlurmVersionLine;
    return 0;
  }
  if (options->command.empty()) {
    std::cerr << "srun: fatal: No command given to execute.\n";
    return 1;
  }
  if (options->multi_prog) {
    if (rota::Status s = UseMultiProgFile(*options); !s.ok()) {
      std::cerr << "srun: error: " << s.message() << "\n";
      return 1;
    }
  }
  if (options->job_id == 0) return RunInNewAllocation(*options, args);
  if (std::optional<std::string> refused =
          StepNodeCountError(*options, EnvironmentFromEnvp(environ))) {
    std::cerr << *refused << "\n";
    return 1;
  }
  return Run(*options, nullptr, {});
}
