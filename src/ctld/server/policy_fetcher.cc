#include "ctld/server/policy_fetcher.h"

#include "accounting_admin.pb.h"
#include "api/dbd_methods.h"
#include "auth/signed_send.h"
#include "common/log.h"

namespace rota::ctld {

RpcPolicySource::RpcPolicySource(std::string host, uint16_t port,
                                 std::unique_ptr<auth::CredentialIssuer> issuer)
    : host_(std::move(host)), port_(port), issuer_(std::move(issuer)) {}

Result<wire::PolicyState> RpcPolicySource::Fetch() {
  if (!client_.connected()) {
    ROTA_RETURN_IF_ERROR(client_.Connect(host_, port_, std::chrono::seconds(5)));
  }
  wire::PolicyState state;
  for (const char* kind : {"account", "user", "assoc", "qos"}) {
    wire::ListEntitiesRequest request;
    request.set_kind(kind);
    std::string body = request.SerializeAsString();
    std::string answer_body;
    ROTA_RETURN_IF_ERROR(auth::SendSigned(
        *issuer_, auth::RpcBindingBytes(api::kDbdListEntities, body),
        [&](const std::string& credential) {
          Result<rpc::Response> answer =
              client_.Call(api::kDbdListEntities, credential, body, std::chrono::seconds(30));
          if (!answer.ok()) {
            client_.Close();
            return answer.status();
          }
          ROTA_RETURN_IF_ERROR(answer->ToStatus());
          answer_body = std::move(answer->body);
          return Status::Ok();
        }));
    wire::ListEntitiesResponse listed;
    if (!listed.ParseFromString(answer_body)) {
      return InvalidArgument("rotadbd's entity list does not parse");
    }
    // AcctEntity and PolicyEntity share their wire form.
    for (const wire::AcctEntity& e : listed.entities()) {
      if (!state.add_entities()->ParseFromString(e.SerializeAsString())) {
        return InvalidArgument("rotadbd's entity does not parse as policy");
      }
    }
  }
  return state;
}

PolicyFetcher::PolicyFetcher(std::unique_ptr<PolicySource> source, Deliver deliver,
                             std::chrono::milliseconds period)
    : source_(std::move(source)), deliver_(std::move(deliver)), period_(period) {}

PolicyFetcher::~PolicyFetcher() { Stop(); }

void PolicyFetcher::Start() {
  thread_ = std::thread([this] { Run(); });
}

void PolicyFetcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PolicyFetcher::Wake(std::function<void()> fetched) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
    if (fetched) waiters_.push_back(std::move(fetched));
  }
  cv_.notify_all();
}

uint64_t PolicyFetcher::fetched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fetched_;
}

void PolicyFetcher::Run() {
  bool reachable = true;
  while (true) {
    // Whoever woke us before this fetch begins is answered after it.
    std::vector<std::function<void()>> waiting;
    {
      std::lock_guard<std::mutex> lock(mu_);
      waiting.swap(waiters_);
    }
    Result<wire::PolicyState> state = source_->Fetch();
    if (state.ok()) {
      if (!reachable) spdlog::info("accounting policy: rotadbd answers again");
      reachable = true;
      deliver_(std::move(state).value());
      std::lock_guard<std::mutex> lock(mu_);
      ++fetched_;
    } else if (reachable) {
      spdlog::warn("accounting policy: cannot read it from rotadbd ({}); enforcing the last known",
                   state.status().ToString());
      reachable = false;
    }
    for (const std::function<void()>& w : waiting) w();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, period_, [&] { return stopping_ || woken_; });
    if (stopping_) {
      waiting.swap(waiters_);
      lock.unlock();
      for (const std::function<void()>& w : waiting) w();
      return;
    }
    woken_ = false;
  }
}

}  // namespace rota::ctld
