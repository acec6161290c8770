#pragma once

// Keeps the controller's accounting policy in step with rotadbd: a thread
// reads accounts, users and QoS from rotadbd at start, then every `period`
// and at once when told (sacctmgr's "policy changed"), and hands each table
// to `deliver` (the daemon enqueues it on the state loop, where the core
// keeps it only when it changed). While rotadbd is unreachable nothing is
// delivered and the controller enforces the table it holds.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "auth/credential.h"
#include "common/status.h"
#include "policy.pb.h"
#include "rpc/client.h"

namespace rota::ctld {

// Where the policy comes from; a fake in tests.
class PolicySource {
 public:
  virtual ~PolicySource() = default;
  virtual Result<wire::PolicyState> Fetch() = 0;
};

// rotadbd over RPC (its list method, once per kind).
class RpcPolicySource : public PolicySource {
 public:
  RpcPolicySource(std::string host, uint16_t port, std::unique_ptr<auth::CredentialIssuer> issuer);
  Result<wire::PolicyState> Fetch() override;

 private:
  std::string host_;
  uint16_t port_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;
  rpc::RpcClient client_;  // Fetching thread only
};

class PolicyFetcher {
 public:
  using Deliver = std::function<void(wire::PolicyState)>;
  PolicyFetcher(std::unique_ptr<PolicySource> source, Deliver deliver,
                std::chrono::milliseconds period);
  ~PolicyFetcher();  // Stop().
  PolicyFetcher(const PolicyFetcher&) = delete;
  PolicyFetcher& operator=(const PolicyFetcher&) = delete;

  void Start();
  void Stop();
  // Fetch now rather than at the next period. `fetched`, if given, runs on the
  // fetching thread once a fetch begun after this call has been delivered (or
  // has failed, or the fetcher stops), so that a caller can answer only when
  // the change it reported is known. Thread-safe; never blocks.
  void Wake(std::function<void()> fetched = nullptr);
  // How many fetches succeeded (for tests and logs).
  uint64_t fetched() const;

 private:
  void Run();

  std::unique_ptr<PolicySource> source_;
  Deliver deliver_;
  std::chrono::milliseconds period_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // Guarded by mu_.
  bool woken_ = false;     // Guarded by mu_.
  uint64_t fetched_ = 0;   // Guarded by mu_.
  // Waiting for the next fetch to begin and end. Guarded by mu_.
  std::vector<std::function<void()>> waiters_;
  std::thread thread_;
};

}  // namespace rota::ctld
