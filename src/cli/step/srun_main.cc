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
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/auth_settings.h"
#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "cli/client/node_caller.h"
#include "cli/step/mpi_type.h"
#include "cli/step/pmi_fence.h"
#include "cli/step/raw_terminal.h"
#include "cli/step/srun_options.h"
#include "cli/step/srun_plan.h"
#include "cli/step/step_usage_tally.h"
#include "cli/step/task_output.h"
#include "cli/submit/allocation.h"
#include "cli/submit/job_options.h"
#include "cli/submit/propagated_limits.h"
#include "common/step_io_pattern.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "step_rpc.pb.h"

extern char** environ;

namespace rota::cli {
namespace {

constexpr uint32_t kMaxFrameBytes = 64u << 20;
// How much of its stdin srun holds for nodes that have not taken it yet; it
// reads no more until they do.
constexpr size_t kStdinBacklogBytes = 256u << 10;

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
               "      --mpi=none|pmi2|list   PMI-2 for MPI tasks (pmi2), or none\n"
               "      --pty                  run task 0 in a pseudo-terminal\n"
               "  -J, --job-name=name        name of the step\n"
               "      --jobid=id             run inside this job's allocation\n";
}

// Reads one length-prefixed frame from a blocking socket; false at EOF/error.
bool ReadFrame(int fd, wire::TaskIoFrame& frame) {
  auto read_all = [fd](char* p, size_t n) {
    while (n > 0) {
      ssize_t got = read(fd, p, n);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      p += got;
      n -= static_cast<size_t>(got);
    }
    return true;
  };
  unsigned char header[4];
  if (!read_all(reinterpret_cast<char*>(header), 4)) return false;
  uint32_t len = (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) |
                 (uint32_t{header[2]} << 8) | header[3];
  if (len > kMaxFrameBytes) return false;
  std::string body(len, '\0');
  if (!read_all(body.data(), len)) return false;
  return frame.ParseFromString(body);
}

// One frame as it travels: a 4-byte big-endian length, then the frame.
std::string Framed(const wire::TaskIoFrame& frame) {
  std::string body = frame.SerializeAsString();
  std::string message(4, '\0');
  const uint32_t len = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) message[i] = static_cast<char>((len >> (24 - 8 * i)) & 0xff);
  return message + body;
}

void WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

std::string RandomKey() {
  std::string key(16, '\0');
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!read(fd, key.data(), key.size());
    close(fd);
  }
  return key;
}

// The address the node daemons reach srun at: the address of the node srun
// runs on (SLURMD_NODENAME), else loopback.
std::string IoHost(const conf::ClusterConfig& config) {
  if (const char* me = std::getenv("SLURMD_NODENAME"); me != nullptr) {
    if (const conf::NodeConfig* n = config.FindNode(me); n != nullptr && !n->address.empty()) {
      return n->address;
    }
  }
  return "127.0.0.1";
}

Result<int> Listen(const std::string& host, uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Internal(std::string("socket: ") + strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) addr.sin_addr.s_addr = INADDR_ANY;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 128) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int saved = errno;
    close(fd);
    return Internal(std::string("cannot listen for task output: ") + strerror(saved));
  }
  *port = ntohs(addr.sin_port);
  return fd;
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

int Run(const SrunOptions& options, ControllerClient* given_client,
        const std::vector<std::pair<std::string, std::string>>& extra_env) {
  std::unique_ptr<ControllerClient> own_client;
  if (given_client == nullptr) {
    auto made = ControllerClient::Create(conf::DefaultSlurmConfPath());
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
  const uint32_t job_id = step.job_id();
  const uint32_t step_id = step.step_id();
  if (options.verbose > 0) {
    std::cerr << "srun: jobid " << job_id << ": step " << step_id << ", " << step.num_tasks()
              << " task(s) on " << step.nodes_size() << " node(s)\n";
  }

  // -o/-e with one file for all tasks: srun writes it.
  StepIoFields fields;
  fields.job_id = job_id;
  fields.step_id = step_id;
  fields.user = created.job().spec().user();
  fields.job_name = created.job().spec().name();
  fields.node = step.nodes_size() > 0 ? step.nodes(0) : "";
  fields.array_job_id = created.job().array_job_id();
  fields.array_task_id = created.job().array_task_id();
  int out_fd = 1;
  int err_fd = 2;
  auto open_sink = [&](const StepIoOption& o, int* fd) {
    if (o.kind != StepIoOption::kFile || StepIoPatternPerTask(o.pattern)) return true;
    std::string path = ExpandStepIoPattern(o.pattern, fields);
    *fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (options.append ? O_APPEND : O_TRUNC),
               0644);
    if (*fd < 0)
      std::cerr << "srun: error: cannot open " << path << ": " << strerror(errno) << "\n";
    return *fd >= 0;
  };
  bool sinks_ok = open_sink(options.output, &out_fd);
  if (sinks_ok && options.error.kind == StepIoOption::kFile &&
      options.error.pattern == options.output.pattern) {
    err_fd = out_fd;
  } else if (sinks_ok) {
    sinks_ok = open_sink(options.error, &err_fd);
  }
  if (!sinks_ok) {
    wire::StepEndedRequest failed_end;
    failed_end.set_job_id(job_id);
    failed_end.set_step_id(step_id);
    failed_end.set_wait_status(1u << 8);
    wire::Empty none;
    client->Call(api::kStepEnded, failed_end, &none).ok();
    return 1;
  }

  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(config));
  if (!issuer.ok()) {
    std::cerr << "srun: error: " << issuer.status().message() << "\n";
    return 1;
  }
  NodeCaller nodes(config, **issuer);
  wire::StepEndedRequest ended;
  ended.set_job_id(job_id);
  ended.set_step_id(step_id);
  StepUsageTally usage;  // From the tasks' EXIT frames
  auto end_step = [&](uint32_t wait_status) {
    ended.set_wait_status(wait_status);
    if (wire::StepUsage summary = usage.Summary(); summary.tasks() > 0) {
      *ended.mutable_usage() = std::move(summary);
    }
    wire::Empty none;
    client->Call(api::kStepEnded, ended, &none).ok();
  };

  const std::string io_host = IoHost(config);
  uint16_t io_port = 0;
  Result<int> listening = Listen(io_host, &io_port);
  if (!listening.ok()) {
    std::cerr << "srun: error: " << listening.status().message() << "\n";
    end_step(1u << 8);
    return 1;
  }
  const std::string key = RandomKey();

  // Signals reach the loop through a pipe; they are forwarded to the tasks.
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, OnSignal);
    if (options.pty) signal(SIGWINCH, OnSignal);
  }
  signal(SIGPIPE, SIG_IGN);

  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  std::string mpi_warning;
  wire::LaunchTasksRequest launch =
      LaunchRequestFor(options, config, job_id, step_id, std::move(env), extra_env, &mpi_warning);
  if (!mpi_warning.empty()) std::cerr << "srun: warning: " << mpi_warning << "\n";
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) launch.set_work_dir(cwd);
  launch.set_io_host(io_host);
  launch.set_io_port(io_port);
  launch.set_io_key(key);
  // --pty: the task's terminal starts with the size of srun's.
  if (options.pty) {
    std::optional<WindowSize> window = TerminalWindowSize(0);
    if (!window) window = TerminalWindowSize(1);
    if (window) {
      launch.mutable_window()->set_rows(window->rows);
      launch.mutable_window()->set_cols(window->cols);
    }
  }

  // Launch on every node at once; errors are collected for the user.
  std::mutex errors_mu;
  std::vector<std::string> launch_errors;  // Guarded by errors_mu.
  int launched_nodes = 0;                  // Answers received. Guarded by errors_mu.
  int started_nodes = 0;                   // Answers "tasks run". Guarded by errors_mu.
  std::vector<std::thread> launchers;
  for (int i = 0; i < step.nodes_size(); ++i) {
    wire::LaunchTasksRequest mine = launch;
    mine.set_node_index(static_cast<uint32_t>(i));
    launchers.emplace_back([&, mine, node = step.nodes(i)] {
      Status launched = nodes.Call(node, api::kLaunchTasks, mine, std::chrono::seconds(60));
      std::lock_guard<std::mutex> lock(errors_mu);
      if (!launched.ok()) launch_errors.push_back(node + ": " + launched.message());
      ++launched_nodes;
      if (launched.ok()) ++started_nodes;
    });
  }
  auto signal_all = [&](int sig) {
    wire::SignalTasksRequest req;
    req.set_job_id(job_id);
    req.set_step_id(step_id);
    req.set_signal(sig);
    for (const std::string& node : step.nodes()) {
      nodes.Call(node, api::kSignalTasks, req, std::chrono::seconds(10)).ok();
    }
  };

  TaskOutput output(options.label, step.num_tasks());
  std::map<uint32_t, uint32_t> exits;  // Task id -> wait status
  std::map<uint32_t, std::string> task_node;
  std::set<uint32_t> out_of_memory;  // Tasks whose step cage saw the kernel's memory kill
  std::vector<int> connections;
  std::set<int> greeted;
  std::map<int, std::string> node_of;
  bool failed = false;
  PmiFenceAggregator fences(static_cast<size_t>(step.nodes_size()));
  size_t reported = 0;    // Launch errors printed
  int greeted_total = 0;  // Nodes that connected (each before answering its launch)

  // stdin: srun's goes to one task (the node holding it) or to all of them.
  const bool stdin_all = options.input.kind == StepIoOption::kAll;
  bool stdin_open =
      options.input.kind == StepIoOption::kAll ||
      (options.input.kind == StepIoOption::kStream && options.input.task < step.num_tasks());
  const std::string stdin_node = StdinNode(options.input, step);  // The task reading it
  // The connections stdin goes to, once they are all there.
  auto stdin_targets = [&]() -> std::optional<std::vector<int>> {
    std::vector<int> out;
    for (int c : connections) {
      if (greeted.count(c) != 0 && (stdin_all || node_of[c] == stdin_node)) out.push_back(c);
    }
    const size_t wanted = stdin_all ? static_cast<size_t>(step.nodes_size()) : 1;
    if (out.size() < wanted) return std::nullopt;
    return out;
  };
  // What srun sends its nodes (stdin, window sizes) waits here until their
  // connection takes it, so that a task that does not read its stdin slows
  // srun's reading of it instead of growing a buffer (or blocking srun's
  // relay of output, which could be what the task waits for).
  std::map<int, std::string> outgoing;
  size_t outgoing_bytes = 0;
  auto flush = [&](int c) {
    std::string& pending = outgoing[c];
    while (!pending.empty()) {
      ssize_t n = send(c, pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {  // The node is gone; its reading side reports it.
        outgoing_bytes -= pending.size();
        pending.clear();
        return;
      }
      pending.erase(0, static_cast<size_t>(n));
      outgoing_bytes -= static_cast<size_t>(n);
    }
  };
  auto queue = [&](int c, const std::string& message) {
    outgoing[c] += message;
    outgoing_bytes += message.size();
    flush(c);
  };
  auto send_stdin = [&](const std::vector<int>& targets, const char* data, size_t n) {
    wire::TaskIoFrame frame;
    frame.set_kind(n > 0 ? wire::TaskIoFrame::STDIN : wire::TaskIoFrame::STDIN_EOF);
    frame.set_task(options.input.task);
    frame.set_all_tasks(stdin_all);
    frame.set_data(data, n);
    for (int c : targets) queue(c, Framed(frame));
  };

  // --pty: srun's terminal passes keys through raw while the step runs; its
  // size changes follow (SIGWINCH) once task 0's node is there to take them.
  std::optional<RawTerminal> raw;
  bool raw_tried = false;
  bool resized = false;
  auto send_window = [&](const std::vector<int>& targets) {
    std::optional<WindowSize> now = TerminalWindowSize(0);
    if (!now) now = TerminalWindowSize(1);
    if (!now) return;
    wire::TaskIoFrame frame;
    frame.set_kind(wire::TaskIoFrame::WINDOW_SIZE);
    frame.mutable_window()->set_rows(now->rows);
    frame.mutable_window()->set_cols(now->cols);
    for (int c : targets) queue(c, Framed(frame));
  };

  // -K and -W end the step early.
  bool terminating = false;
  std::optional<std::chrono::steady_clock::time_point> first_exit;
  std::optional<std::chrono::steady_clock::time_point> last_interrupt;
  // Node answers counted when the step was killed: a node that answers
  // later may have started its tasks after the kill reached it.
  int killed_at_answers = 0;
  auto terminate = [&](const std::string& why) {
    if (terminating) return;
    terminating = true;
    if (!why.empty()) std::cerr << why;
    std::cerr << "srun: Terminating StepId=" << job_id << "." << step_id << "\n";
    {
      std::lock_guard<std::mutex> lock(errors_mu);
      killed_at_answers = launched_nodes;
    }
    signal_all(SIGKILL);
  };

  while (exits.size() < step.num_tasks()) {
    bool all_answered;
    int answered_now;
    {
      std::lock_guard<std::mutex> lock(errors_mu);
      // A node connects before it answers: until its connection is taken,
      // its stream is still to come.
      all_answered = launched_nodes == step.nodes_size() && greeted_total >= started_nodes;
      answered_now = launched_nodes;
      if (raw && reported < launch_errors.size()) raw->Restore();
      for (; reported < launch_errors.size(); ++reported) {
        std::cerr << "srun: error: task launch failed on " << launch_errors[reported] << "\n";
      }
    }
    if (reported > 0 && !failed) {
      failed = true;
      signal_all(SIGKILL);
    }
    if (failed && raw) raw->Restore();
    if (terminating && answered_now > killed_at_answers) {
      killed_at_answers = answered_now;
      signal_all(SIGKILL);
    }
    // Every node answered and none streams any more: nothing else will come.
    if (all_answered && connections.empty()) {
      if (!failed) std::cerr << "srun: error: lost contact with the step's nodes\n";
      failed = true;
      break;
    }
    if (first_exit && options.wait_seconds > 0 && !terminating &&
        std::chrono::steady_clock::now() - *first_exit >
            std::chrono::seconds(options.wait_seconds)) {
      terminate("srun: error: First task exited " + std::to_string(options.wait_seconds) +
                "s ago; " + std::to_string(step.num_tasks() - exits.size()) +
                " task(s) still running\n");
    }
    std::optional<std::vector<int>> targets;
    if (stdin_open || options.pty) targets = stdin_targets();
    if (options.pty && !raw_tried && !failed) {
      // Raw from the start: keys typed before the task runs wait in the
      // terminal unechoed, and reach the task's terminal, which echoes them.
      raw_tried = true;
      raw = RawTerminal::Enter(0);
      // The size may change before task 0's node takes it.
      resized = true;
    }
    if (resized && targets) {
      send_window(*targets);
      resized = false;
    }
    std::vector<pollfd> fds;
    fds.push_back({*listening, POLLIN, 0});
    fds.push_back({signal_pipe[0], POLLIN, 0});
    fds.push_back(
        {targets && stdin_open && outgoing_bytes < kStdinBacklogBytes ? 0 : -1, POLLIN, 0});
    for (int c : connections) {
      fds.push_back({c, static_cast<short>(POLLIN | (outgoing[c].empty() ? 0 : POLLOUT)), 0});
    }
    poll(fds.data(), fds.size(), 100);
    if (fds[1].revents != 0) {
      unsigned char sig;
      while (read(signal_pipe[0], &sig, 1) == 1) {
        if (sig == SIGWINCH) {
          resized = true;
          continue;
        }
        if (sig == SIGINT) {
          // ^C once: the tasks' status; twice within a second: end the step.
          auto now = std::chrono::steady_clock::now();
          if (last_interrupt && now - *last_interrupt < std::chrono::seconds(1)) {
            terminate("srun: interrupted twice: cancelling the step\n");
          } else {
            std::cerr << "srun: interrupt (one more within 1 sec to abort)\n";
            for (const std::string& line :
                 TaskStatusLines(job_id, step_id, step.num_tasks(), exits)) {
              std::cerr << line << "\n";
            }
          }
          last_interrupt = now;
          continue;
        }
        std::cerr << "srun: forwarding signal " << static_cast<int>(sig) << " to step " << job_id
                  << "." << step_id << "\n";
        signal_all(sig);
      }
    }
    if (fds[0].revents != 0) {
      int c = accept4(*listening, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) connections.push_back(c);
    }
    if (targets && stdin_open && fds[2].revents != 0) {
      char in[64 * 1024];
      ssize_t n = (fds[2].revents & POLLNVAL) != 0 ? 0 : read(0, in, sizeof in);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        // Try again.
      } else if (n <= 0) {
        send_stdin(*targets, nullptr, 0);
        stdin_open = false;
      } else {
        send_stdin(*targets, in, static_cast<size_t>(n));
      }
    }
    std::vector<int> closed;
    for (size_t i = 3; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLOUT) != 0) flush(fds[i].fd);
      if ((fds[i].revents & ~POLLOUT) == 0) continue;
      int c = fds[i].fd;
      wire::TaskIoFrame frame;
      if (!ReadFrame(c, frame)) {
        closed.push_back(c);
        continue;
      }
      if (greeted.count(c) == 0) {
        // The first frame proves the sender knows the key srun gave its nodes.
        if (frame.kind() != wire::TaskIoFrame::HELLO || frame.io_key() != key) {
          closed.push_back(c);
          continue;
        }
        greeted.insert(c);
        ++greeted_total;
        node_of[c] = frame.node();
        continue;
      }
      if (frame.has_pmi()) {
        const wire::PmiExchange& pmi = frame.pmi();
        if (pmi.kind() == wire::PmiExchange::ABORT) {
          terminate("srun: error: task " + std::to_string(pmi.task()) +
                    ": PMI abort: " + pmi.message() + "\n");
          continue;
        }
        PmiPairs puts;
        for (const wire::PmiPair& p : pmi.pairs()) puts.emplace_back(p.key(), p.value());
        Result<std::optional<PmiPairs>> merged =
            fences.Add(node_of[c], pmi.round(), std::move(puts));
        if (!merged.ok()) {
          terminate("srun: error: " + merged.status().message() + "\n");
        } else if (*merged) {
          wire::TaskIoFrame done;
          done.mutable_pmi()->set_kind(wire::PmiExchange::FENCE_DONE);
          done.mutable_pmi()->set_round(pmi.round());
          for (auto& [k, v] : **merged) {
            wire::PmiPair* pair = done.mutable_pmi()->add_pairs();
            pair->set_key(k);
            pair->set_value(v);
          }
          const std::string message = Framed(done);
          for (int target : connections) {
            if (greeted.count(target) != 0) queue(target, message);
          }
        }
        continue;
      }
      switch (frame.kind()) {
        case wire::TaskIoFrame::STDOUT:
          WriteAll(out_fd, output.Add(frame.task(), 1, frame.data()));
          break;
        case wire::TaskIoFrame::STDERR:
          WriteAll(err_fd, output.Add(frame.task(), 2, frame.data()));
          break;
        case wire::TaskIoFrame::EXIT: {
          WriteAll(out_fd, output.Flush(frame.task(), 1));
          WriteAll(err_fd, output.Flush(frame.task(), 2));
          const uint32_t status = frame.wait_status();
          exits[frame.task()] = status;
          task_node[frame.task()] = node_of[c];
          if (frame.out_of_memory()) out_of_memory.insert(frame.task());
          usage.Add(frame.task(), node_of[c], frame.max_rss_kb());
          if (!first_exit) first_exit = std::chrono::steady_clock::now();
          const bool bad = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
          if (options.kill_on_bad_exit && bad && exits.size() < step.num_tasks()) {
            terminate("");
          }
          break;
        }
        case wire::TaskIoFrame::FAILED:
          // Its launch answer says why (printed above, once it comes).
          if (!failed) {
            failed = true;
            signal_all(SIGKILL);
          }
          break;
        default:
          break;
      }
    }
    for (int c : closed) {
      outgoing_bytes -= outgoing[c].size();
      outgoing.erase(c);
      greeted.erase(c);
      close(c);
      connections.erase(std::find(connections.begin(), connections.end(), c));
    }
  }
  if (raw) raw->Restore();
  for (std::thread& t : launchers) t.join();
  for (int c : connections) close(c);
  close(*listening);

  uint32_t worst_status = 0;
  for (const auto& [task, status] : exits) {
    const std::string& node = task_node[task];
    if (out_of_memory.count(task) != 0) {
      std::cerr << "srun: error: " << node << ": task " << task << ": Out Of Memory\n";
    } else if (WIFSIGNALED(status)) {
      std::cerr << "srun: error: " << node << ": task " << task << ": "
                << strsignal(WTERMSIG(status)) << "\n";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      std::cerr << "srun: error: " << node << ": task " << task << ": Exited with exit code "
                << WEXITSTATUS(status) << "\n";
    }
  }
  int code = StepExitCode(exits);
  for (const auto& [task, status] : exits) {
    const int task_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                          : WIFEXITED(status) ? WEXITSTATUS(status)
                                              : 1;
    if (task_code == code && code != 0) worst_status = status;
  }
  if (failed && code == 0) {
    code = 1;
    worst_status = 1u << 8;
  }
  if (out_fd > 2) close(out_fd);
  if (err_fd > 2 && err_fd != out_fd) close(err_fd);
  ended.set_out_of_memory(!out_of_memory.empty());
  end_step(worst_status);
  return code;
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
  auto client = ControllerClient::Create(conf::DefaultSlurmConfPath());
  if (!client.ok()) {
    std::cerr << "srun: error: " << client.status().message() << "\n";
    return 1;
  }
  // ^C or a termination signal while waiting gives the request up.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, OnGiveUp);
  auto allocation = Allocate(**client, spec, AllocationVoice::kSrun, &give_up);
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
    std::cout << "rota 0.1.0 (slurm 22.05 compatible)\n";
    return 0;
  }
  if (options->command.empty()) {
    std::cerr << "srun: fatal: No command given to execute.\n";
    return 1;
  }
  if (options->job_id == 0) return RunInNewAllocation(*options, args);
  if (std::optional<std::string> refused =
          StepNodeCountError(*options, EnvironmentFromEnvp(environ))) {
    std::cerr << *refused << "\n";
    return 1;
  }
  return Run(*options, nullptr, {});
}
