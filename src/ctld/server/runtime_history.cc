#include "ctld/server/runtime_history.h"

#include "api/dbd_methods.h"
#include "auth/signed_send.h"
#include "common/log.h"
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
  // The states whose runs say how long a job needed (RuntimeForecasts::Telling).
  for (wire::JobState s : {wire::JOB_STATE_COMPLETED, wire::JOB_STATE_FAILED,
                           wire::JOB_STATE_TIMEOUT, wire::JOB_STATE_OUT_OF_MEMORY}) {
    request.add_states(s);
  }
  const std::string body = request.SerializeAsString();
  std::string answer_body;
  ROTA_RETURN_IF_ERROR(auth::SendSigned(
      issuer, auth::RpcBindingBytes(api::kDbdQueryJobs, body), [&](const std::string& credential) {
        Result<rpc::Response> answer =
            client.Call(api::kDbdQueryJobs, credential, body, std::chrono::seconds(60));
        if (!answer.ok()) return answer.status();
        ROTA_RETURN_IF_ERROR(answer->ToStatus());
        answer_body = std::move(answer->body);
        return Status::Ok();
      }));
  wire::QueryJobsResponse out;
  if (!out.ParseFromString(answer_body))
    return InvalidArgument("rotadbd's job list does not parse");
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
