#include "ctld/server/node_messenger.h"

#include <chrono>

#include "api/methods.h"
#include "common/log.h"
#include "ctld/core/prepared_nodes.h"
#include "ctld/server/node_call.h"
#include "job_prepare.pb.h"
#include "model/job_launch.h"

namespace rota::ctld {
namespace {

constexpr int kMaxAttempts = 5;

}  // namespace

NodeMessenger::NodeMessenger(std::shared_ptr<const conf::ClusterConfig> config,
                             std::unique_ptr<auth::CredentialIssuer> issuer, int threads)
    : config_(std::move(config)), issuer_(std::move(issuer)) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

NodeMessenger::~NodeMessenger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void NodeMessenger::SetConfig(std::shared_ptr<const conf::ClusterConfig> config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = std::move(config);
}

void NodeMessenger::Carry(const Effects& effects) {
  std::vector<Message> messages;
  bool prepare;
  {
    std::lock_guard<std::mutex> lock(mu_);
    prepare = PreparesEveryNode(*config_);
  }
  for (const LaunchJob& l : effects.launches) {
    if (l.job->nodes().empty()) continue;
    // What the nodes are told of the job: not the controller's bookkeeping.
    wire::JobLaunch launch = model::LaunchOf(*l.job);
    if (prepare && l.job->nodes_size() > 1) {
      // PrologFlags=Alloc/Contain: the other nodes first, in the job's order,
      // so that the Prologs have run before the batch script starts and any
      // later signal of the job finds them prepared.
      wire::PrepareJobRequest req;
      *req.mutable_job() = launch;
      std::string body = req.SerializeAsString();
      for (int i = 1; i < l.job->nodes_size(); ++i) {
        messages.push_back({l.job->job_id(), l.job->nodes(i), api::kPrepareJob, body});
      }
    }
    wire::LaunchJobRequest req;
    *req.mutable_job() = std::move(launch);
    if (l.payload) *req.mutable_payload() = *l.payload;
    messages.push_back(
        {l.job->job_id(), l.job->nodes(0), api::kLaunchJob, req.SerializeAsString()});
  }
  for (const SignalJob& s : effects.signals) {
    wire::SignalJobRequest req;
    req.set_job_id(s.job_id);
    req.set_signal(s.signal);
    req.set_batch_only(s.batch_only);
    req.set_terminate(s.terminate);
    req.set_steps_only(s.steps_only);
    std::string body = req.SerializeAsString();
    for (const std::string& node : s.nodes) {
      messages.push_back({s.job_id, node, api::kSignalJob, body});
    }
  }
  if (messages.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Message& m : messages) queue_.push_back(std::move(m));
  }
  cv_.notify_all();
}

bool NodeMessenger::Deliver(const Message& message) {
  std::shared_ptr<const conf::ClusterConfig> config;
  {
    std::lock_guard<std::mutex> lock(mu_);
    config = config_;
  }
  const conf::NodeConfig* node = config->FindNode(message.node);
  if (node == nullptr) {
    spdlog::error("no node {} in the configuration; dropping message {}", message.node,
                  message.method);
    return true;
  }
  Status s = CallNode(*config, *node, *issuer_, message.method, message.body,
                      {std::chrono::seconds(3), std::chrono::seconds(10)});
  if (!s.ok()) {
    spdlog::warn("node {} ({}:{}): message {} failed: {}", message.node, node->address,
                 NodePort(*config, *node), message.method, s.message());
  }
  return s.ok();
}

std::optional<NodeMessenger::Message> NodeMessenger::TakeReadyLocked() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (in_flight_.count(it->job_id) != 0) continue;
    Message m = std::move(*it);
    queue_.erase(it);
    in_flight_.insert(m.job_id);
    return m;
  }
  return std::nullopt;
}

void NodeMessenger::Run() {
  while (true) {
    std::optional<Message> m;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || (m = TakeReadyLocked()).has_value(); });
      if (stopping_) return;
    }
    bool delivered = Deliver(*m);
    if (!delivered && ++m->attempts >= kMaxAttempts) {
      spdlog::error("giving up on message {} to node {} after {} attempts", m->method, m->node,
                    m->attempts);
      delivered = true;
    }
    if (!delivered) {
      // Back off a little with the job still in flight, so that its later
      // messages keep waiting behind this one; then it goes first again.
      std::this_thread::sleep_for(std::chrono::milliseconds(200 * m->attempts));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_.erase(m->job_id);
      if (!delivered) queue_.push_front(std::move(*m));
    }
    cv_.notify_all();
  }
}

}  // namespace rota::ctld
