#include "cli/client/node_caller.h"

#include "auth/signed_send.h"
#include "rpc/client.h"

namespace rota::cli {

Status NodeCaller::Call(const std::string& node, uint16_t method,
                        const google::protobuf::MessageLite& request,
                        std::chrono::milliseconds timeout) {
  return Call(node, method, request, nullptr, timeout);
}

Status NodeCaller::Call(const std::string& node, uint16_t method,
                        const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite* response,
                        std::chrono::milliseconds timeout) {
  const conf::NodeConfig* n = config_.FindNode(node);
  if (n == nullptr) return NotFound("node " + node + " is not in slurm.conf");
  uint16_t port = n->port != 0 ? n->port : config_.settings.slurmd_port;
  std::string address = n->address.empty() ? n->name : n->address;
  rpc::RpcClient client;
  ROTA_RETURN_IF_ERROR(client.Connect(address, port, std::chrono::seconds(5)));
  std::string body = request.SerializeAsString();
  // Signs under mu_ only: the call itself runs unlocked, as before.
  class LockedIssuer final : public auth::CredentialIssuer {
   public:
    LockedIssuer(auth::CredentialIssuer& issuer, std::mutex& mu) : issuer_(issuer), mu_(mu) {}
    Result<std::string> Issue(std::string_view bound_bytes) override {
      std::lock_guard<std::mutex> lock(mu_);
      return issuer_.Issue(bound_bytes);
    }

   private:
    auth::CredentialIssuer& issuer_;
    std::mutex& mu_;
  } locked(issuer_, mu_);
  return auth::SendSigned(
      locked, auth::RpcBindingBytes(method, body), [&](const std::string& credential) {
        Result<rpc::Response> answer = client.Call(method, credential, body, timeout);
        if (!answer.ok()) return answer.status();
        ROTA_RETURN_IF_ERROR(answer->ToStatus());
        if (response != nullptr && !response->ParseFromString(answer->body)) {
          return Status(StatusCode::kInternal, "malformed answer from " + node);
        }
        return Status::Ok();
      });
}

}  // namespace rota::cli
