#include "noded/controller_link.h"

#include <fmt/format.h>

#include <optional>

#include "api/controller_standby.h"
#include "auth/signed_send.h"

namespace rota::noded {

ControllerLink::ControllerLink(std::vector<ControllerAddress> controllers,
                               std::unique_ptr<auth::CredentialIssuer> issuer,
                               std::chrono::milliseconds timeout)
    : controllers_(std::move(controllers)), issuer_(std::move(issuer)), timeout_(timeout) {}

Status ControllerLink::ConnectLocked() {
  Status last(StatusCode::kUnavailable, "no SlurmctldHost configured");
  // From the one after a controller that said it is in standby, round the list.
  for (size_t tried = 0; tried < controllers_.size(); ++tried) {
    const size_t index = (next_ + tried) % controllers_.size();
    const ControllerAddress& c = controllers_[index];
    last = client_.Connect(c.host, c.port, std::chrono::seconds(3));
    if (last.ok()) {
      connected_ = index;
      return last;
    }
  }
  return Status(StatusCode::kUnavailable,
                fmt::format("cannot reach the controller: {}", last.message()));
}

Status ControllerLink::Call(uint16_t method, const google::protobuf::MessageLite& request) {
  return Call(method, request, nullptr);
}

Status ControllerLink::Call(uint16_t method, const google::protobuf::MessageLite& request,
                            google::protobuf::MessageLite* response) {
  std::string body = request.SerializeAsString();
  std::lock_guard<std::mutex> lock(mu_);
  // A connection the controller closed while idle shows only on use: one retry
  // on a fresh connection tells that apart from a controller that is down.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!client_.connected()) ROTA_RETURN_IF_ERROR(ConnectLocked());
    // Fresh each attempt: the controller may have seen (and remembers) the last one.
    std::optional<Result<rpc::Response>> reply;
    Status signed_call = auth::SendSigned(
        *issuer_, auth::RpcBindingBytes(method, body), [&](const std::string& credential) {
          reply = client_.Call(method, credential, body, timeout_);
          return reply->ok() ? (*reply)->ToStatus() : reply->status();
        });
    if (!reply.has_value()) return signed_call;  // The issuer failed.
    Result<rpc::Response>& answer = *reply;
    if (answer.ok() && api::IsStandbyAnswer(answer->ToStatus())) {
      // A backup not in control: the next call goes to the next controller,
      // and this one is worth retrying (the caller's heartbeat does).
      client_.Close();
      next_ = connected_ + 1;
      return answer->ToStatus();
    }
    if (answer.ok()) {
      if (!answer->ok() || response == nullptr) return answer->ToStatus();
      if (!response->ParseFromString(answer->body)) return Internal("malformed answer");
      return Status::Ok();
    }
    if (attempt == 1) return Status(StatusCode::kUnavailable, answer.status().message());
  }
  return Status(StatusCode::kUnavailable, "unreachable");
}

}  // namespace rota::noded
