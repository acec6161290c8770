#include "ctld/server/node_messenger.h"

#include <chrono>

#include "api/methods.h"
#include "common/log.h"
#include "rpc/client.h"

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
  for (const LaunchJob& l : effects.launches) {
    if (l.job->nodes().empty()) continue;
    wire::LaunchJobRequest req;
    *req.mutable_job() = *l.job;
    if (l.payload) *req.mutable_payload() = *l.payload;
    messages.push_back({l.job->nodes(0), api::kLaunchJob, req.SerializeAsString()});
  }
  for (const SignalJob& s : effects.signals) {
    wire::SignalJobRequest req;
    req.set_job_id(s.job_id);
    req.set_signal(s.signal);
    req.set_batch_only(s.batch_only);
    req.set_terminate(s.terminate);
    std::string body = req.SerializeAsString();
    for (const std::string& node : s.nodes) messages.push_back({node, api::kSignalJob, body});
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
  uint16_t port = node->port != 0 ? node->port : config->settings.slurmd_port;
  rpc::RpcClient client;
  Status s = client.Connect(node->address, port, std::chrono::seconds(3));
  if (s.ok()) {
    Result<std::string> cred = issuer_->Issue(auth::RpcBindingBytes(message.method, message.body));
    if (!cred.ok()) {
      s = cred.status();
    } else {
      Result<rpc::Response> answer =
          client.Call(message.method, *cred, message.body, std::chrono::seconds(10));
      s = answer.ok() ? answer->ToStatus() : answer.status();
    }
  }
  if (!s.ok()) {
    spdlog::warn("node {} ({}:{}): message {} failed: {}", message.node, node->address, port,
                 message.method, s.message());
  }
  return s.ok();
}

void NodeMessenger::Run() {
  while (true) {
    Message m;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      m = std::move(queue_.front());
      queue_.pop_front();
    }
    if (Deliver(m)) continue;
    if (++m.attempts >= kMaxAttempts) {
      spdlog::error("giving up on message {} to node {} after {} attempts", m.method, m.node,
                    m.attempts);
      continue;
    }
    // Back off a little, then queue it again behind newer work.
    std::this_thread::sleep_for(std::chrono::milliseconds(200 * m.attempts));
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(m));
  }
}

}  // namespace rota::ctld
