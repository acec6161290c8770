#include "noded/stepd/step_daemon.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "noded/stepd/step_channel.h"
#include "noded/stepd/step_files.h"

namespace rota::noded {
namespace {

// How long a finished step daemon waits for rotad to collect its answers.
constexpr std::chrono::seconds kLinger(2);

}  // namespace

StepDaemon::StepDaemon(const NodeContext& node, wire::StepRecord record)
    : node_(node),
      job_id_(record.launch().job().job_id()),
      job_(node, std::move(*record.mutable_launch()),
           std::vector<uint32_t>(record.gpu_indices().begin(), record.gpu_indices().end()),
           record.container()) {}

StepDaemon::~StepDaemon() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  if (acceptor_.joinable()) acceptor_.join();
}

Result<wire::JobExitedRequest> StepDaemon::Run() {
  const std::string& spool = node_.settings.spool_dir;
  Result<int> listening = ListenStepSocket(StepSocketPath(spool, job_id_));
  if (!listening.ok()) return listening.status();
  // The socket's identity: a later run of the same job (requeued) may have
  // put its own socket at this path by the time this one goes.
  struct stat own {};
  stat(StepSocketPath(spool, job_id_).c_str(), &own);
  acceptor_ = std::thread([this, fd = *listening] { AcceptLoop(fd); });

  wire::JobExitedRequest outcome = job_.Run([this](const Status& started) {
    if (!started.ok()) return;
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
  });
  // Recorded before anyone hears of it: rotad may die right after asking.
  Status recorded = WriteStepOutcome(spool, outcome);
  if (!recorded.ok()) spdlog::error("job {}: {}", job_id_, recorded.message());
  std::unique_lock<std::mutex> lock(mu_);
  outcome_ = outcome;
  ended_ = true;
  cv_.notify_all();
  cv_.wait_for(lock, kLinger, [this] { return connections_ == 0; });
  closing_ = true;
  lock.unlock();
  acceptor_.join();
  // A socket that no longer answers tells a restarted rotad to read the outcome.
  struct stat now {};
  const std::string socket = StepSocketPath(spool, job_id_);
  if (stat(socket.c_str(), &now) == 0 && now.st_ino == own.st_ino && now.st_dev == own.st_dev) {
    unlink(socket.c_str());
  }
  return outcome;
}

void StepDaemon::AcceptLoop(int listen_fd) {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closing_) break;
    }
    pollfd p{listen_fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++connections_;
    }
    // Detached: a waiting connection lives until the job ends; Run waits for
    // the count to reach zero (or gives up after kLinger).
    std::thread([this, fd] { Serve(fd); }).detach();
  }
  close(listen_fd);
}

wire::StepStatus StepDaemon::CurrentStatus() {
  wire::StepStatus status;
  status.set_stepd_pid(getpid());
  if (ended_) {
    status.set_state(wire::StepStatus::STEP_ENDED);
    *status.mutable_outcome() = outcome_;
  } else {
    status.set_state(running_ ? wire::StepStatus::STEP_RUNNING : wire::StepStatus::STEP_STARTING);
  }
  return status;
}

void StepDaemon::Serve(int fd) {
  wire::StepRequest request;
  Status read = ReadStepMessage(fd, request, std::chrono::seconds(10));
  wire::StepStatus answer;
  if (read.ok()) {
    if (request.has_signal()) {
      const wire::StepSignal& s = request.signal();
      job_.Signal(s.signal(), s.batch_only(), s.terminate());
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (request.kind_case() == wire::StepRequest::kWaitForEnd) {
      cv_.wait(lock, [this] { return ended_; });
    }
    answer = CurrentStatus();
  }
  if (read.ok()) {
    Status written = WriteStepMessage(fd, answer);
    if (!written.ok()) spdlog::debug("job {}: {}", job_id_, written.message());
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mu_);
  --connections_;
  cv_.notify_all();
}

}  // namespace rota::noded
