#include "api/signed_call.h"

#include "auth/signed_send.h"

namespace rota::api {

Result<std::string> SignedCall(rpc::RpcClient& rpc, auth::CredentialIssuer& issuer, uint16_t method,
                               const std::string& body, std::chrono::milliseconds timeout) {
  std::string answer_body;
  ROTA_RETURN_IF_ERROR(auth::SendSigned(
      issuer, auth::RpcBindingBytes(method, body), [&](const std::string& credential) {
        Result<rpc::Response> answer = rpc.Call(method, credential, body, timeout);
        if (!answer.ok()) return answer.status();
        if (!answer->ok()) return answer->ToStatus();
        answer_body = std::move(answer->body);
        return Status::Ok();
      }));
  return answer_body;
}

}  // namespace rota::api
