#pragma once

// SchedulerParameters=rota_predict_runtime after a restart: the controller
// keeps ended jobs only for MinJobAge, so the runs its users had before come
// from rotadbd. A thread asks once for the runs that ended in the last
// kHistoryDays (again every `retry` while rotadbd cannot be reached) and
// hands them to `deliver`; the daemon enqueues them on the state loop.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "accounting.pb.h"
#include "auth/credential.h"
#include "common/status.h"

namespace rota::ctld {

inline constexpr int64_t kHistoryDays = 3;

// rotadbd's ended runs of `cluster` since `since` (Unix seconds).
Result<wire::QueryJobsResponse> QueryEndedRuns(const std::string& host, uint16_t port,
                                               auth::CredentialIssuer& issuer,
                                               const std::string& cluster, int64_t since);

class RuntimeHistoryFetcher {
 public:
  using Fetch = std::function<Result<wire::QueryJobsResponse>()>;
  using Deliver = std::function<void(wire::QueryJobsResponse)>;
  RuntimeHistoryFetcher(Fetch fetch, Deliver deliver, std::chrono::milliseconds retry);
  ~RuntimeHistoryFetcher();  // Stops the thread
  RuntimeHistoryFetcher(const RuntimeHistoryFetcher&) = delete;
  RuntimeHistoryFetcher& operator=(const RuntimeHistoryFetcher&) = delete;

  void Start();
  bool delivered() const;

 private:
  void Run();

  Fetch fetch_;
  Deliver deliver_;
  std::chrono::milliseconds retry_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;   // Guarded by mu_
  bool delivered_ = false;  // Guarded by mu_
  std::thread thread_;
};

}  // namespace rota::ctld
