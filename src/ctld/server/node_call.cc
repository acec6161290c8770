#include "ctld/server/node_call.h"

#include "auth/signed_send.h"
#include "rpc/client.h"

namespace rota::ctld {

uint16_t NodePort(const conf::ClusterConfig& config, const conf::NodeConfig& node) {
  return node.port != 0 ? node.port : config.settings.slurmd_port;
}

Status CallNode(const conf::ClusterConfig& config, const conf::NodeConfig& node,
                auth::CredentialIssuer& issuer, uint16_t method, const std::string& body,
                NodeCallTimeouts timeouts) {
  rpc::RpcClient client;
  ROTA_RETURN_IF_ERROR(client.Connect(node.address, NodePort(config, node), timeouts.connect));
  return auth::SendSigned(
      issuer, auth::RpcBindingBytes(method, body), [&](const std::string& credential) {
        Result<rpc::Response> answer = client.Call(method, credential, body, timeouts.answer);
        return answer.ok() ? answer->ToStatus() : answer.status();
      });
}

}  // namespace rota::ctld
