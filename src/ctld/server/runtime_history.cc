#include "ctld/server/runtime_history.h"

#include "api/dbd_methods.h"
#include "api/signed_call.h"
#include "common/log.h"
#include "ctld/core/runtime_forecasts.h"
#include "rpc/client.h"

namespace rota::ctld {

Result<wire::QueryJobsResponse> QueryEndedRuns(const std::string& host, uint16_t port,
                                               auth::CredentialIssuer& issuer,
                                               const std::string& cluster, int64_t since) {
  rpc::RpcClient client;
  ROTA_RETURN_IF_ERROR(client.Connect(host, port, std::chrono::seconds(5)));
  wire::QueryJobsRequest request;
  request.set_cluster(cluster);
  request.set_window_start(since);
  for (wire::JobState s : RuntimeForecasts::kTellingStates) request.add_states(s);
  Result<std::string> answer = api::SignedCall(
      client, issuer, api::kDbdQueryJobs, request.SerializeAsString(), std::chrono::seconds(60));
  if (!answer.ok()) return answer.status();
  wire::QueryJobsResponse out;
  if (!out.ParseFromString(*answer)) return InvalidArgument("rotadbd's job list does not parse");
  return out;
}

RuntimeHistoryFetcher::RuntimeHistoryFetcher(Fetch fetch, Deliver deliver,
                                             std::chrono::milliseconds retry)
    : fetch_(std::move(fetch)), deliver_(std::move(deliver)), retry_(retry) {}

RuntimeHistoryFetcher::~RuntimeHistoryFetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RuntimeHistoryFetcher::Start() {
  thread_ = std::thread([this] { Run(); });
}

bool RuntimeHistoryFetcher::delivered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delivered_;
}

void RuntimeHistoryFetcher::Run() {
  while (true) {
    Result<wire::QueryJobsResponse> runs = fetch_();
    if (runs.ok()) {
      const int count = runs->jobs_size();
      deliver_(std::move(runs).value());
      spdlog::info("runtime predictions: learned from {} ended runs in accounting", count);
      std::lock_guard<std::mutex> lock(mu_);
      delivered_ = true;
      return;
    }
    spdlog::warn("runtime predictions: cannot read past runs from rotadbd ({}); trying again",
                 runs.status().message());
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, retry_, [this] { return stopping_; })) return;
  }
}

}  // namespace rota::ctld
