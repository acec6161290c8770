#include "ctld/server/registration_nudge.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "api/methods.h"
#include "auth/signed_send.h"
#include "rpc/client.h"

namespace rota::ctld {

RegistrationNudge::RegistrationNudge(std::shared_ptr<const conf::ClusterConfig> config,
                                     std::unique_ptr<auth::CredentialIssuer> issuer)
    : config_(std::move(config)), issuer_(std::move(issuer)) {}

RegistrationNudge::~RegistrationNudge() { Stop(); }

void RegistrationNudge::Start() {
  const size_t threads = std::min(kParallel, config_->nodes.size());
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { AskNodes(); });
}

void RegistrationNudge::Stop() {
  stopping_ = true;
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void RegistrationNudge::AskNodes() {
  const std::string body;  // Empty
  for (size_t i = next_++; i < config_->nodes.size() && !stopping_; i = next_++) {
    const conf::NodeConfig& node = config_->nodes[i];
    const uint16_t port = node.port != 0 ? node.port : config_->settings.slurmd_port;
    rpc::RpcClient client;
    Status s = client.Connect(node.address, port, std::chrono::seconds(1));
    if (s.ok()) {
      s = auth::SendSigned(*issuer_, auth::RpcBindingBytes(api::kRegisterNow, body),
                           [&](const std::string& credential) {
                             Result<rpc::Response> answer = client.Call(
                                 api::kRegisterNow, credential, body, std::chrono::seconds(2));
                             return answer.ok() ? answer->ToStatus() : answer.status();
                           });
    }
    if (s.ok()) {
      ++answered_;
    } else {
      spdlog::debug("node {} was not asked to register now: {}", node.name, s.message());
    }
  }
}

}  // namespace rota::ctld
