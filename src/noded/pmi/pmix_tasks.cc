#include "noded/pmi/pmix_tasks.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/log.h"
#include "noded/stepd/step_channel.h"

namespace rota::noded {
namespace {

// How long rota-pmix may take to register the tasks, and to stop.
constexpr auto kRegisterTimeout = std::chrono::seconds(30);
constexpr auto kStopGrace = std::chrono::seconds(3);

// A fence contribution is bytes; srun's PMI pairs carry text.
std::string Base64(const std::string& bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  text.resize(static_cast<size_t>(n));
  return text;
}

Result<std::string> FromBase64(const std::string& text) {
  if (text.size() % 4 != 0) return InvalidArgument("a PMIx contribution is not base64");
  std::string bytes(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return InvalidArgument("a PMIx contribution is not base64");
  size_t padding = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && padding < 2; --i) ++padding;
  bytes.resize(static_cast<size_t>(n) - padding);
  return bytes;
}

wire::TaskIoFrame AbortFrame(uint32_t rank, const std::string& message) {
  wire::TaskIoFrame frame;
  wire::PmiExchange* abort = frame.mutable_pmi();
  abort->set_kind(wire::PmiExchange::ABORT);
  abort->set_task(rank);
  abort->set_message(message);
  return frame;
}

// fork and exec `program` with `channel` as its descriptor 3.
Result<pid_t> SpawnServer(const std::string& program, int channel) {
  // Prepared before fork: between fork and exec only system calls (other
  // threads may hold allocator locks).
  std::string path = program;
  char* argv[] = {path.data(), nullptr};
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = fork();
  if (pid < 0) {
    if (null_fd >= 0) close(null_fd);
    return Internal(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (null_fd >= 0) dup2(null_fd, 0);
    if (dup2(channel, 3) < 0) _exit(127);
    close_range(4, ~0U, 0);
    execv(path.c_str(), argv);
    _exit(127);
  }
  if (null_fd >= 0) close(null_fd);
  return pid;
}

}  // namespace

std::string PmixServerProgram() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "rota-pmix").string();
}

Result<std::unique_ptr<PmixTasks>> PmixTasks::Start(const std::string& program,
                                                    const wire::PmixSetup& setup) {
  if (setup.node_index() >= static_cast<uint32_t>(setup.nodes_size()) ||
      setup.nodes_size() != setup.tasks_per_node_size()) {
    return InvalidArgument("a PMIx step whose nodes and task counts do not match");
  }
  if (access(program.c_str(), X_OK) != 0) {
    return Internal("the PMIx server " + program + " cannot run: " + std::strerror(errno));
  }
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Internal(std::string("cannot make the PMIx server's socket pair: ") +
                    std::strerror(errno));
  }
  Result<pid_t> pid = SpawnServer(program, pair[1]);
  close(pair[1]);
  if (!pid.ok()) {
    close(pair[0]);
    return pid.status();
  }
  // The node's first task, named when its server fails.
  uint32_t first_rank = 0;
  for (uint32_t n = 0; n < setup.node_index(); ++n) first_rank += setup.tasks_per_node(n);
  if (static_cast<int>(first_rank) < setup.task_ids_size()) first_rank = setup.task_ids(first_rank);
  std::unique_ptr<PmixTasks> tasks(
      new PmixTasks(*pid, pair[0], setup.nodes(setup.node_index()), first_rank));

  wire::PmixHelperMessage message;
  *message.mutable_setup() = setup;
  ROTA_RETURN_IF_ERROR(WriteStepMessage(tasks->channel_, message));
  wire::PmixHelperMessage answer;
  if (Status read = ReadStepMessage(tasks->channel_, answer, kRegisterTimeout); !read.ok()) {
    return Internal("the PMIx server did not register the tasks: " + read.message());
  }
  if (answer.has_error())
    return Internal("the PMIx server cannot serve the step: " + answer.error());
  const uint32_t local_tasks = setup.tasks_per_node(setup.node_index());
  if (!answer.has_ready() || answer.ready().tasks_size() != static_cast<int>(local_tasks)) {
    return Internal("the PMIx server registered other tasks than the step's");
  }
  for (const wire::PmixTaskVariables& task : answer.ready().tasks()) {
    std::vector<std::pair<std::string, std::string>> variables;
    for (const std::string& v : task.variables()) {
      const size_t eq = v.find('=');
      if (eq != std::string::npos) variables.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    }
    tasks->variables_.push_back(std::move(variables));
  }
  return tasks;
}

PmixTasks::~PmixTasks() { Stop(); }

void PmixTasks::Stop() {
  if (channel_ >= 0) close(channel_);
  channel_ = -1;
  if (pid_ <= 0) return;
  const auto give_up = std::chrono::steady_clock::now() + kStopGrace;
  while (waitpid(pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= give_up) {
      spdlog::warn("the PMIx server (pid {}) does not stop; killing it", pid_);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

std::vector<std::pair<std::string, std::string>> PmixTasks::TaskEnvironment(
    uint32_t local_task) const {
  return local_task < variables_.size() ? variables_[local_task]
                                        : std::vector<std::pair<std::string, std::string>>();
}

size_t PmixTasks::AddPollFds(std::vector<pollfd>& fds) const {
  fds.push_back({channel_, POLLIN, 0});
  return fds.size() - 1;
}

std::vector<wire::TaskIoFrame> PmixTasks::OnPolled(const std::vector<pollfd>& fds, size_t first) {
  std::vector<wire::TaskIoFrame> to_srun;
  if (channel_ < 0 || first >= fds.size() || fds[first].revents == 0) return to_srun;
  wire::PmixHelperMessage message;
  if (Status read = ReadStepMessage(channel_, message, std::chrono::seconds(5)); !read.ok()) {
    // The tasks' fences would wait for ever: the step ends.
    spdlog::warn("step on {}: the PMIx server is gone: {}", node_, read.message());
    Stop();
    to_srun.push_back(AbortFrame(first_rank_, "the PMIx server of node " + node_ + " ended"));
    return to_srun;
  }
  if (message.has_fence()) {
    wire::TaskIoFrame frame;
    wire::PmiExchange* fence = frame.mutable_pmi();
    fence->set_kind(wire::PmiExchange::FENCE);
    fence->set_round(message.fence().round());
    wire::PmiPair* pair = fence->add_pairs();
    pair->set_key("pmix." + node_);
    pair->set_value(Base64(message.fence().data()));
    to_srun.push_back(std::move(frame));
  } else if (message.has_abort()) {
    const wire::PmixHelperMessage::Abort& abort = message.abort();
    to_srun.push_back(AbortFrame(abort.rank(), abort.message().empty()
                                                   ? "exit status " + std::to_string(abort.status())
                                                   : abort.message()));
  }
  return to_srun;
}

void PmixTasks::OnSrunFrame(const wire::PmiExchange& exchange) {
  if (exchange.kind() != wire::PmiExchange::FENCE_DONE || channel_ < 0) return;
  wire::PmixHelperMessage message;
  wire::PmixHelperMessage::FenceDone* done = message.mutable_fence_done();
  done->set_round(exchange.round());
  for (const wire::PmiPair& pair : exchange.pairs()) {
    Result<std::string> bytes = FromBase64(pair.value());
    if (!bytes.ok()) {
      spdlog::warn("step on {}: fence {}: {} ({})", node_, exchange.round(),
                   bytes.status().message(), pair.key());
      continue;
    }
    done->add_contributions(*std::move(bytes));
  }
  if (Status sent = WriteStepMessage(channel_, message); !sent.ok()) {
    spdlog::warn("step on {}: the PMIx server is gone: {}", node_, sent.message());
  }
}

}  // namespace rota::noded
