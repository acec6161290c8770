#pragma once

// Carries the controller's outward effects to node daemons: a launch goes to
// the job's first node, a signal to every node of the job. Runs on its own
// threads so the state loop never waits on a network peer; a node that does
// not answer is retried a few times and then logged (node liveness and
// requeue on launch failure belong to the node daemon work).
//
// A node daemon answers a launch only once the job's script runs, so each
// delivery holds its thread for the launch's whole latency: many threads keep
// many launches in flight, and with them the cluster's job throughput. The
// messages of one job still go out one at a time, in order (a signal never
// overtakes its job's launch, nor a retried message the ones after it).

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "auth/credential.h"
#include "conf/cluster_config.h"
#include "ctld/server/state_loop.h"

namespace rota::ctld {

class NodeMessenger : public EffectSink {
 public:
  // Launches in flight at once, across all nodes.
  static constexpr int kDefaultThreads = 16;

  NodeMessenger(std::shared_ptr<const conf::ClusterConfig> config,
                std::unique_ptr<auth::CredentialIssuer> issuer, int threads = kDefaultThreads);
  ~NodeMessenger() override;

  void Carry(const Effects& effects) override;
  void SetConfig(std::shared_ptr<const conf::ClusterConfig> config);

 private:
  struct Message {
    uint32_t job_id = 0;
    std::string node;
    uint16_t method = 0;
    std::string body;
    int attempts = 0;
  };

  void Run();
  bool Deliver(const Message& message);
  // The first queued message whose job has none in flight, taken out of the
  // queue and its job marked in flight; nullopt when there is none.
  // REQUIRES: mu_ held.
  std::optional<Message> TakeReadyLocked();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Message> queue_;                          // Guarded by mu_.
  std::set<uint32_t> in_flight_;                       // Job ids; guarded by mu_.
  std::shared_ptr<const conf::ClusterConfig> config_;  // Guarded by mu_.
  bool stopping_ = false;                              // Guarded by mu_.
  std::unique_ptr<auth::CredentialIssuer> issuer_;     // Thread-safe.
  std::vector<std::thread> threads_;
};

}  // namespace rota::ctld
