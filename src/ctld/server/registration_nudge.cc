#include "ctld/server/registration_nudge.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "api/methods.h"
#include "ctld/server/node_call.h"

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
    Status s = CallNode(*config_, node, *issuer_, api::kRegisterNow, body,
                        {std::chrono::seconds(1), std::chrono::seconds(2)});
    if (s.ok()) {
      ++answered_;
    } else {
      spdlog::debug("node {} was not asked to register now: {}", node.name, s.message());
    }
  }
}

}  // namespace rota::ctld
