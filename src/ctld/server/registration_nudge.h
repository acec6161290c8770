#pragma once

// A controller that starts asks every configured node daemon to register at
// once (RegisterNow), so that jobs start as soon as it is up rather than at
// each node's next heartbeat (SlurmdTimeout/3, up to 100 s by default). Best
// effort, once: a node that does not answer now registers on its own
// schedule, so there are no retries, short timeouts, and nothing is logged
// above debug for nodes that are down.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "auth/credential.h"
#include "conf/cluster_config.h"

namespace rota::ctld {

class RegistrationNudge {
 public:
  // Nodes asked at once.
  static constexpr size_t kParallel = 8;

  RegistrationNudge(std::shared_ptr<const conf::ClusterConfig> config,
                    std::unique_ptr<auth::CredentialIssuer> issuer);
  ~RegistrationNudge();  // Stops and joins.

  // Starts asking, on threads of its own.
  void Start();
  // Stops asking (nodes not yet asked are left out) and joins.
  void Stop();
  // Nodes that answered (for tests and the log).
  size_t answered() const { return answered_; }

 private:
  void AskNodes();

  const std::shared_ptr<const conf::ClusterConfig> config_;
  const std::unique_ptr<auth::CredentialIssuer> issuer_;  // Thread-safe.
  std::atomic<size_t> next_{0};
  std::atomic<size_t> answered_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace rota::ctld
