#include "noded/stepd/step_io_relay.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/log.h"
#include "noded/pmi/step_pmi.h"
#include "noded/stepd/step_channel.h"
#include "noded/stepd/step_usage.h"
#include "noded/stepd/task_terminal.h"

namespace rota::noded {
namespace {

// How much of srun's stdin a node holds for a task that has not read it yet;
// beyond it, srun is made to wait (back-pressure through TCP).
constexpr size_t kTaskStdinBufferBytes = 1 << 20;

Result<int> ConnectTcp(const std::string& host, uint32_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return Status(StatusCode::kUnavailable,
                  "cannot resolve srun's host " + host + ": " + gai_strerror(rc));
  }
  int fd = -1;
  int saved = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      saved = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return Status(StatusCode::kUnavailable, "cannot connect to srun at " + host + ":" +
                                                std::to_string(port) + ": " + strerror(saved));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

void WritePendingStdin(LocalTask& task) {
  while (task.stdin_fd >= 0 && !task.stdin_pending.empty()) {
    ssize_t n = write(task.stdin_fd, task.stdin_pending.data(), task.stdin_pending.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // EPIPE: nobody reads any more
      task.stdin_pending.clear();
      close(task.stdin_fd);
      task.stdin_fd = -1;
      return;
    }
    task.stdin_pending.erase(0, static_cast<size_t>(n));
  }
  if (task.stdin_fd >= 0 && task.stdin_eof && task.stdin_pending.empty()) {
    close(task.stdin_fd);
    task.stdin_fd = -1;
  }
}

Result<std::unique_ptr<StepIoRelay>> StepIoRelay::Connect(const wire::LaunchTasksRequest& request,
                                                          const std::string& node) {
  Result<int> connected = ConnectTcp(request.io_host(), request.io_port());
  if (!connected.ok()) return connected.status();
  return std::make_unique<StepIoRelay>(*connected, request.job_id(), request.step_id(), node);
}

StepIoRelay::StepIoRelay(int io, uint32_t job_id, uint32_t step_id, std::string node)
    : io_(io), job_id_(job_id), step_id_(step_id), node_(std::move(node)) {}

StepIoRelay::~StepIoRelay() {
  if (io_ >= 0) close(io_);
}

Status StepIoRelay::Hello(const std::string& io_key) {
  wire::TaskIoFrame hello;
  hello.set_kind(wire::TaskIoFrame::HELLO);
  hello.set_io_key(io_key);
  hello.set_node(node_);
  return WriteStepMessage(io_, hello);
}

void StepIoRelay::SendFailure(const std::string& why) {
  wire::TaskIoFrame frame;
  frame.set_kind(wire::TaskIoFrame::FAILED);
  frame.set_node(node_);
  frame.set_data(why);
  WriteStepMessage(io_, frame).ok();
}

void StepIoRelay::SendTaskStderr(uint32_t task, const std::string& text) {
  wire::TaskIoFrame frame;
  frame.set_kind(wire::TaskIoFrame::STDERR);
  frame.set_task(task);
  frame.set_data(text);
  WriteStepMessage(io_, frame).ok();
}

bool StepIoRelay::TakeFrameFromSrun(std::vector<LocalTask>& tasks, StepPmi* pmi) {
  wire::TaskIoFrame frame;
  if (!ReadStepMessage(io_, frame, std::chrono::seconds(10)).ok()) return false;
  if (frame.has_pmi()) {
    if (pmi != nullptr) pmi->OnSrunFrame(frame.pmi());
    return true;
  }
  if (frame.kind() == wire::TaskIoFrame::WINDOW_SIZE) {
    for (LocalTask& task : tasks) {
      if (task.terminal >= 0) {
        ResizeTaskTerminal(task.terminal, frame.window().rows(), frame.window().cols());
      }
    }
    return true;
  }
  if (frame.kind() != wire::TaskIoFrame::STDIN && frame.kind() != wire::TaskIoFrame::STDIN_EOF) {
    return true;
  }
  for (LocalTask& task : tasks) {
    if (task.stdin_fd < 0 || (!frame.all_tasks() && frame.task() != task.global_id)) continue;
    if (frame.kind() == wire::TaskIoFrame::STDIN_EOF && task.terminal >= 0) {
      // A terminal stays open; its reader sees the end of input as a
      // terminal user would make it.
      task.stdin_pending += TerminalEndOfFile(task.terminal);
    } else if (frame.kind() == wire::TaskIoFrame::STDIN_EOF) {
      task.stdin_eof = true;
    } else {
      task.stdin_pending += frame.data();
    }
    WritePendingStdin(task);
  }
  return true;
}

bool StepIoRelay::ReapIfExited(LocalTask& task, TaskEndHooks& hooks) {
  siginfo_t info{};
  // WNOWAIT: the pid stays the task's until the step has stopped signalling it.
  if (waitid(P_PID, task.pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
    return true;
  }
  hooks.Exiting(task);
  int status = 0;
  rusage used{};
  while (wait4(task.pid, &status, 0, &used) < 0 && errno == EINTR) {
  }
  task.exited = true;
  task.wait_status = static_cast<uint32_t>(status);
  task.max_rss_kb = static_cast<uint64_t>(std::max<long>(0, used.ru_maxrss));
  task.user_cpu_us = UserCpuMicros(used);
  task.system_cpu_us = SystemCpuMicros(used);
  if (task.stdin_fd >= 0) close(task.stdin_fd);
  task.stdin_fd = -1;
  hooks.Reaped(task);
  if (status == 0) return true;
  // A task that failed after the kernel killed in its step's cage for
  // memory (itself or a child of it) ended Out Of Memory.
  const uint64_t kills = hooks.StepOomKills();
  task.out_of_memory = kills > 0;
  if (kills <= oom_kills_told_) return true;
  oom_kills_told_ = kills;
  wire::TaskIoFrame frame;
  frame.set_kind(wire::TaskIoFrame::STDERR);
  frame.set_task(task.global_id);
  frame.set_data(
      fmt::format("rotad: error: Detected {} oom-kill event(s) in StepId={}.{} cgroup on {}: "
                  "the kernel killed processes of the step that outgrew its memory limit.\n",
                  kills, job_id_, step_id_, node_));
  return WriteStepMessage(io_, frame).ok();
}

bool StepIoRelay::RelayUntilDone(std::vector<LocalTask>& tasks, StepPmi* pmi, TaskEndHooks& hooks) {
  bool srun_gone = false;
  std::vector<char> buf(64 * 1024);
  while (!srun_gone) {
    std::vector<pollfd> polled;
    std::vector<std::pair<size_t, int>> owner;  // (task, stream) per polled fd
    for (size_t i = 0; i < tasks.size(); ++i) {
      for (int s = 0; s < 2; ++s) {
        if (tasks[i].fds[s] < 0) continue;
        polled.push_back({tasks[i].fds[s], POLLIN, 0});
        owner.emplace_back(i, s);
      }
    }
    const size_t streams = polled.size();
    for (const LocalTask& task : tasks) {
      if (!task.exited && task.pidfd >= 0) polled.push_back({task.pidfd, POLLIN, 0});
    }
    std::vector<size_t> writers;  // Tasks whose stdin has data waiting
    const size_t writers_first = polled.size();
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].stdin_fd >= 0 && !tasks[i].stdin_pending.empty()) {
        polled.push_back({tasks[i].stdin_fd, POLLOUT, 0});
        writers.push_back(i);
      }
    }
    // srun's stdin frames; EOF: srun is gone. While a task has a full
    // buffer of stdin it has not read, no more is taken from srun (so srun
    // stops reading its own): only srun's going away is watched for.
    bool stdin_full = false;
    for (const LocalTask& task : tasks) {
      stdin_full =
          stdin_full || (task.stdin_fd >= 0 && task.stdin_pending.size() >= kTaskStdinBufferBytes);
    }
    const size_t pmi_first = pmi != nullptr ? pmi->AddPollFds(polled) : polled.size();
    polled.push_back({io_, static_cast<short>(stdin_full ? POLLRDHUP : POLLIN), 0});
    poll(polled.data(), polled.size(), 100);
    if (stdin_full && polled.back().revents != 0) {
      srun_gone = true;  // srun never half-closes: its end is closed.
    } else if (polled.back().revents != 0 && !TakeFrameFromSrun(tasks, pmi)) {
      srun_gone = true;
    }
    if (pmi != nullptr && !srun_gone) {
      for (const wire::TaskIoFrame& frame : pmi->OnPolled(polled, pmi_first)) {
        if (!WriteStepMessage(io_, frame).ok()) srun_gone = true;
      }
    }
    for (size_t w = 0; w < writers.size(); ++w) {
      if (polled[writers_first + w].revents != 0) {
        WritePendingStdin(tasks[writers[w]]);
      }
    }
    for (size_t p = 0; p < streams && !srun_gone; ++p) {
      LocalTask& task = tasks[owner[p].first];
      int& fd = task.fds[owner[p].second];
      if (polled[p].revents == 0) {
        // An ended task whose pipes are drained is done, even if something
        // it left behind still holds them open.
        if (task.exited) {
          close(fd);
          fd = -1;
        }
        continue;
      }
      ssize_t n = read(fd, buf.data(), buf.size());
      if (n <= 0) {
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        close(fd);
        fd = -1;
        continue;
      }
      wire::TaskIoFrame frame;
      frame.set_kind(owner[p].second == 0 ? wire::TaskIoFrame::STDOUT : wire::TaskIoFrame::STDERR);
      frame.set_task(task.global_id);
      frame.set_data(buf.data(), static_cast<size_t>(n));
      if (!WriteStepMessage(io_, frame).ok()) srun_gone = true;
    }
    bool all_done = true;
    for (LocalTask& task : tasks) {
      if (!task.exited && !ReapIfExited(task, hooks)) srun_gone = true;
      if (task.exited && !task.reported && task.fds[0] < 0 && task.fds[1] < 0) {
        wire::TaskIoFrame frame;
        frame.set_kind(wire::TaskIoFrame::EXIT);
        frame.set_task(task.global_id);
        frame.set_wait_status(task.wait_status);
        frame.set_max_rss_kb(task.max_rss_kb);
        frame.set_user_cpu_us(task.user_cpu_us);
        frame.set_system_cpu_us(task.system_cpu_us);
        frame.set_out_of_memory(task.out_of_memory);
        const bool last = std::count_if(tasks.begin(), tasks.end(),
                                        [](const LocalTask& t) { return !t.reported; }) == 1;
        if (last) hooks.LastExit(frame);
        if (!WriteStepMessage(io_, frame).ok()) srun_gone = true;
        task.reported = true;
      }
      all_done = all_done && task.reported;
    }
    if (all_done) break;
  }
  return !srun_gone;
}

}  // namespace rota::noded
