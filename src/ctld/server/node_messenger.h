#pragma once

// Carries the controller's outward effects to node daemons: a launch goes to
// the job's first node, a signal to every node of the job. Runs on its own
// threads so the state loop never waits on a network peer; a node that does
// not answer is retried a few times and then logged (node liveness and
// requeue on launch failure belong to the node daemon work).

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "auth/credential.h"
#include "conf/cluster_config.h"
#include "ctld/server/state_loop.h"

namespace rota::ctld {

class NodeMessenger : public EffectSink {
 public:
  NodeMessenger(std::shared_ptr<const conf::ClusterConfig> config,
                std::unique_ptr<auth::CredentialIssuer> issuer, int threads = 2);
  ~NodeMessenger() override;

  void Carry(const Effects& effects) override;
  void SetConfig(std::shared_ptr<const conf::ClusterConfig> config);

 private:
  struct Message {
    std::string node;
    uint16_t method = 0;
    std::string body;
    int attempts = 0;
  };

  void Run();
  bool Deliver(const Message& message);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Message> queue_;                          // Guarded by mu_.
  std::shared_ptr<const conf::ClusterConfig> config_;  // Guarded by mu_.
  bool stopping_ = false;                              // Guarded by mu_.
  std::unique_ptr<auth::CredentialIssuer> issuer_;     // Thread-safe.
  std::vector<std::thread> threads_;
};

}  // namespace rota::ctld
