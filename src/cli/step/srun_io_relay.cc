#include "cli/step/srun_io_relay.h"

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
#include <cstring>
#include <iostream>
#include <utility>

#include "cli/step/srun_plan.h"
#include "common/step_io_pattern.h"

namespace rota::cli {
namespace {

constexpr uint32_t kMaxFrameBytes = 64u << 20;
// How much of its stdin srun holds for nodes that have not taken it yet; it
// reads no more until they do.
constexpr size_t kStdinBacklogBytes = 256u << 10;

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

}  // namespace

std::optional<SrunStreams> OpenOutputFiles(const SrunOptions& options,
                                           const wire::CreateStepResponse& created) {
  const wire::JobStepRecord& step = created.step();
  StepIoFields fields;
  fields.job_id = step.job_id();
  fields.step_id = step.step_id();
  fields.user = created.job().spec().user();
  fields.job_name = created.job().spec().name();
  fields.node = step.nodes_size() > 0 ? step.nodes(0) : "";
  fields.array_job_id = created.job().array_job_id();
  fields.array_task_id = created.job().array_task_id();
  SrunStreams streams;
  auto open_sink = [&](const StepIoOption& o, int* fd) {
    if (o.kind != StepIoOption::kFile || StepIoPatternPerTask(o.pattern)) return true;
    std::string path = ExpandStepIoPattern(o.pattern, fields);
    *fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (options.append ? O_APPEND : O_TRUNC),
               0644);
    if (*fd < 0)
      std::cerr << "srun: error: cannot open " << path << ": " << strerror(errno) << "\n";
    return *fd >= 0;
  };
  bool sinks_ok = open_sink(options.output, &streams.out);
  if (sinks_ok && options.error.kind == StepIoOption::kFile &&
      options.error.pattern == options.output.pattern) {
    streams.err = streams.out;
  } else if (sinks_ok) {
    sinks_ok = open_sink(options.error, &streams.err);
  }
  if (!sinks_ok) return std::nullopt;
  return streams;
}

void CloseOutputFiles(const SrunStreams& streams) {
  if (streams.out > 2) close(streams.out);
  if (streams.err > 2 && streams.err != streams.out) close(streams.err);
}

StepEnding StepEndingOf(const StepOutcome& outcome) {
  StepEnding ending;
  for (const auto& [task, status] : outcome.exits) {
    auto node_it = outcome.task_node.find(task);
    const std::string node = node_it != outcome.task_node.end() ? node_it->second : "";
    const std::string prefix = "srun: error: " + node + ": task " + std::to_string(task) + ": ";
    if (outcome.out_of_memory.count(task) != 0) {
      ending.task_errors.push_back(prefix + "Out Of Memory");
    } else if (WIFSIGNALED(status)) {
      ending.task_errors.push_back(prefix + strsignal(WTERMSIG(status)));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      ending.task_errors.push_back(prefix + "Exited with exit code " +
                                   std::to_string(WEXITSTATUS(status)));
    }
  }
  ending.exit_code = StepExitCode(outcome.exits);
  for (const auto& [task, status] : outcome.exits) {
    const int task_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                          : WIFEXITED(status) ? WEXITSTATUS(status)
                                              : 1;
    if (task_code == ending.exit_code && ending.exit_code != 0) ending.wait_status = status;
  }
  if (outcome.failed && ending.exit_code == 0) {
    ending.exit_code = 1;
    ending.wait_status = 1u << 8;
  }
  return ending;
}

Result<std::unique_ptr<SrunIoRelay>> SrunIoRelay::Listen(const std::string& host,
                                                         const SrunOptions& options,
                                                         const wire::JobStepRecord& step,
                                                         SrunStreams streams) {
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
  return std::unique_ptr<SrunIoRelay>(
      new SrunIoRelay(options, step, streams, fd, ntohs(addr.sin_port), RandomKey()));
}

SrunIoRelay::SrunIoRelay(const SrunOptions& options, const wire::JobStepRecord& step,
                         SrunStreams streams, int listening, uint16_t port, std::string key)
    : options_(options),
      step_(step),
      streams_(streams),
      listening_(listening),
      port_(port),
      key_(std::move(key)),
      output_(options.label, step.num_tasks()),
      fences_(static_cast<size_t>(step.nodes_size())),
      stdin_all_(options.input.kind == StepIoOption::kAll),
      stdin_open_(
          options.input.kind == StepIoOption::kAll ||
          (options.input.kind == StepIoOption::kStream && options.input.task < step.num_tasks())),
      stdin_node_(StdinNode(options.input, step)) {}

SrunIoRelay::~SrunIoRelay() {
  for (int c : connections_) close(c);
  close(listening_);
}

StepOutcome SrunIoRelay::Run(StepNodes& nodes, int signals) {
  nodes_ = &nodes;
  while (outcome_.exits.size() < step_.num_tasks()) {
    if (!FollowLaunches()) break;
    if (first_exit_ && options_.wait_seconds > 0 && !terminating_ &&
        std::chrono::steady_clock::now() - *first_exit_ >
            std::chrono::seconds(options_.wait_seconds)) {
      Terminate("srun: error: First task exited " + std::to_string(options_.wait_seconds) +
                "s ago; " + std::to_string(step_.num_tasks() - outcome_.exits.size()) +
                " task(s) still running\n");
    }
    std::optional<std::vector<int>> targets;
    if (stdin_open_ || options_.pty) targets = StdinTargets();
    if (options_.pty && !raw_tried_ && !outcome_.failed) {
      // Raw from the start: keys typed before the task runs wait in the
      // terminal unechoed, and reach the task's terminal, which echoes them.
      raw_tried_ = true;
      raw_ = RawTerminal::Enter(streams_.in);
      // The size may change before task 0's node takes it.
      resized_ = true;
    }
    if (resized_ && targets) {
      SendWindow(*targets);
      resized_ = false;
    }
    std::vector<pollfd> fds;
    fds.push_back({listening_, POLLIN, 0});
    fds.push_back({signals, POLLIN, 0});
    fds.push_back(
        {targets && stdin_open_ && outgoing_bytes_ < kStdinBacklogBytes ? streams_.in : -1, POLLIN,
         0});
    for (int c : connections_) {
      fds.push_back({c, static_cast<short>(POLLIN | (outgoing_[c].empty() ? 0 : POLLOUT)), 0});
    }
    poll(fds.data(), fds.size(), 100);
    if (fds[1].revents != 0) TakeSignals(signals);
    if (fds[0].revents != 0) {
      int c = accept4(listening_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) connections_.push_back(c);
    }
    if (targets && stdin_open_ && fds[2].revents != 0) ReadStdin(*targets, fds[2].revents);
    std::vector<int> closed;
    for (size_t i = 3; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLOUT) != 0) Flush(fds[i].fd);
      if ((fds[i].revents & ~POLLOUT) == 0) continue;
      if (!TakeFrame(fds[i].fd)) closed.push_back(fds[i].fd);
    }
    for (int c : closed) Drop(c);
  }
  if (raw_) raw_->Restore();
  nodes_ = nullptr;
  return std::move(outcome_);
}

bool SrunIoRelay::FollowLaunches() {
  const LaunchAnswers answers = nodes_->Answers();
  // A node connects before it answers: until its connection is taken, its
  // stream is still to come.
  const bool all_answered =
      answers.answered == step_.nodes_size() && greeted_total_ >= answers.started;
  if (raw_ && reported_ < answers.errors.size()) raw_->Restore();
  for (; reported_ < answers.errors.size(); ++reported_) {
    std::cerr << "srun: error: task launch failed on " << answers.errors[reported_] << "\n";
  }
  if (reported_ > 0 && !outcome_.failed) {
    outcome_.failed = true;
    nodes_->SignalAll(SIGKILL);
  }
  if (outcome_.failed && raw_) raw_->Restore();
  if (terminating_ && answers.answered > killed_at_answers_) {
    killed_at_answers_ = answers.answered;
    nodes_->SignalAll(SIGKILL);
  }
  // Every node answered and none streams any more: nothing else will come.
  if (all_answered && connections_.empty()) {
    if (!outcome_.failed) std::cerr << "srun: error: lost contact with the step's nodes\n";
    outcome_.failed = true;
    return false;
  }
  return true;
}

void SrunIoRelay::Terminate(const std::string& why) {
  if (terminating_) return;
  terminating_ = true;
  if (!why.empty()) std::cerr << why;
  std::cerr << "srun: Terminating StepId=" << step_.job_id() << "." << step_.step_id() << "\n";
  killed_at_answers_ = nodes_->Answers().answered;
  nodes_->SignalAll(SIGKILL);
}

void SrunIoRelay::TakeSignals(int signals) {
  unsigned char sig;
  while (read(signals, &sig, 1) == 1) {
    if (sig == SIGWINCH) {
      resized_ = true;
      continue;
    }
    if (sig == SIGINT) {
      // ^C once: the tasks' status; twice within a second: end the step.
      auto now = std::chrono::steady_clock::now();
      if (last_interrupt_ && now - *last_interrupt_ < std::chrono::seconds(1)) {
        Terminate("srun: interrupted twice: cancelling the step\n");
      } else {
        std::cerr << "srun: interrupt (one more within 1 sec to abort)\n";
        for (const std::string& line :
             TaskStatusLines(step_.job_id(), step_.step_id(), step_.num_tasks(), outcome_.exits)) {
          std::cerr << line << "\n";
        }
      }
      last_interrupt_ = now;
      continue;
    }
    std::cerr << "srun: forwarding signal " << static_cast<int>(sig) << " to step "
              << step_.job_id() << "." << step_.step_id() << "\n";
    nodes_->SignalAll(sig);
  }
}

void SrunIoRelay::ReadStdin(const std::vector<int>& targets, short revents) {
  char in[64 * 1024];
  ssize_t n = (revents & POLLNVAL) != 0 ? 0 : read(streams_.in, in, sizeof in);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
    // Try again.
  } else if (n <= 0) {
    SendStdin(targets, nullptr, 0);
    stdin_open_ = false;
  } else {
    SendStdin(targets, in, static_cast<size_t>(n));
  }
}

bool SrunIoRelay::TakeFrame(int c) {
  wire::TaskIoFrame frame;
  if (!ReadFrame(c, frame)) return false;
  if (greeted_.count(c) == 0) {
    // The first frame proves the sender knows the key srun gave its nodes.
    if (frame.kind() != wire::TaskIoFrame::HELLO || frame.io_key() != key_) return false;
    greeted_.insert(c);
    ++greeted_total_;
    node_of_[c] = frame.node();
    return true;
  }
  if (frame.has_pmi()) {
    TakePmi(c, frame.pmi());
    return true;
  }
  switch (frame.kind()) {
    case wire::TaskIoFrame::STDOUT:
      WriteAll(streams_.out, output_.Add(frame.task(), 1, frame.data()));
      break;
    case wire::TaskIoFrame::STDERR:
      WriteAll(streams_.err, output_.Add(frame.task(), 2, frame.data()));
      break;
    case wire::TaskIoFrame::EXIT:
      TakeExit(c, frame);
      break;
    case wire::TaskIoFrame::FAILED:
      // Its launch answer says why (printed by FollowLaunches, once it comes).
      if (!outcome_.failed) {
        outcome_.failed = true;
        nodes_->SignalAll(SIGKILL);
      }
      break;
    default:
      break;
  }
  return true;
}

void SrunIoRelay::TakePmi(int c, const wire::PmiExchange& pmi) {
  if (pmi.kind() == wire::PmiExchange::ABORT) {
    Terminate("srun: error: task " + std::to_string(pmi.task()) + ": PMI abort: " + pmi.message() +
              "\n");
    return;
  }
  PmiPairs puts;
  for (const wire::PmiPair& p : pmi.pairs()) puts.emplace_back(p.key(), p.value());
  Result<std::optional<PmiPairs>> merged = fences_.Add(node_of_[c], pmi.round(), std::move(puts));
  if (!merged.ok()) {
    Terminate("srun: error: " + merged.status().message() + "\n");
    return;
  }
  if (!*merged) return;
  wire::TaskIoFrame done;
  done.mutable_pmi()->set_kind(wire::PmiExchange::FENCE_DONE);
  done.mutable_pmi()->set_round(pmi.round());
  for (auto& [k, v] : **merged) {
    wire::PmiPair* pair = done.mutable_pmi()->add_pairs();
    pair->set_key(k);
    pair->set_value(v);
  }
  const std::string message = Framed(done);
  for (int target : connections_) {
    if (greeted_.count(target) != 0) Queue(target, message);
  }
}

void SrunIoRelay::TakeExit(int c, const wire::TaskIoFrame& frame) {
  WriteAll(streams_.out, output_.Flush(frame.task(), 1));
  WriteAll(streams_.err, output_.Flush(frame.task(), 2));
  const uint32_t status = frame.wait_status();
  outcome_.exits[frame.task()] = status;
  outcome_.task_node[frame.task()] = node_of_[c];
  if (frame.out_of_memory()) outcome_.out_of_memory.insert(frame.task());
  outcome_.usage.Add(frame.task(), node_of_[c], frame.max_rss_kb());
  outcome_.usage.AddCpu(frame.user_cpu_us(), frame.system_cpu_us());
  if (frame.has_gpu()) outcome_.usage.AddGpu(frame.gpu());
  if (!first_exit_) first_exit_ = std::chrono::steady_clock::now();
  const bool bad = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  if (options_.kill_on_bad_exit && bad && outcome_.exits.size() < step_.num_tasks()) {
    Terminate("");
  }
}

std::optional<std::vector<int>> SrunIoRelay::StdinTargets() {
  std::vector<int> out;
  for (int c : connections_) {
    if (greeted_.count(c) != 0 && (stdin_all_ || node_of_[c] == stdin_node_)) out.push_back(c);
  }
  const size_t wanted = stdin_all_ ? static_cast<size_t>(step_.nodes_size()) : 1;
  if (out.size() < wanted) return std::nullopt;
  return out;
}

void SrunIoRelay::SendStdin(const std::vector<int>& targets, const char* data, size_t n) {
  wire::TaskIoFrame frame;
  frame.set_kind(n > 0 ? wire::TaskIoFrame::STDIN : wire::TaskIoFrame::STDIN_EOF);
  frame.set_task(options_.input.task);
  frame.set_all_tasks(stdin_all_);
  frame.set_data(data, n);
  for (int c : targets) Queue(c, Framed(frame));
}

void SrunIoRelay::SendWindow(const std::vector<int>& targets) {
  std::optional<WindowSize> now = TerminalWindowSize(streams_.in);
  if (!now) now = TerminalWindowSize(STDOUT_FILENO);
  if (!now) return;
  wire::TaskIoFrame frame;
  frame.set_kind(wire::TaskIoFrame::WINDOW_SIZE);
  frame.mutable_window()->set_rows(now->rows);
  frame.mutable_window()->set_cols(now->cols);
  for (int c : targets) Queue(c, Framed(frame));
}

void SrunIoRelay::Queue(int c, const std::string& message) {
  outgoing_[c] += message;
  outgoing_bytes_ += message.size();
  Flush(c);
}

void SrunIoRelay::Flush(int c) {
  std::string& pending = outgoing_[c];
  while (!pending.empty()) {
    ssize_t n = send(c, pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // The node is gone; its reading side reports it.
      outgoing_bytes_ -= pending.size();
      pending.clear();
      return;
    }
    pending.erase(0, static_cast<size_t>(n));
    outgoing_bytes_ -= static_cast<size_t>(n);
  }
}

void SrunIoRelay::Drop(int c) {
  outgoing_bytes_ -= outgoing_[c].size();
  outgoing_.erase(c);
  greeted_.erase(c);
  close(c);
  connections_.erase(std::find(connections_.begin(), connections_.end(), c));
}

}  // namespace rota::cli
