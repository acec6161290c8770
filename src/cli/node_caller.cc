#include "cli/node_caller.h"

#include "rpc/client.h"

namespace rota::cli {

Status NodeCaller::Call(const std::string& node, uint16_t method,
                        const google::protobuf::MessageLite& request,
                        std::chrono::milliseconds timeout) {
  const conf::NodeConfig* n = config_.FindNode(node);
  if (n == nullptr) return NotFound("node " + node + " is not in slurm.conf");
  uint16_t port = n->port != 0 ? n->port : config_.settings.slurmd_port;
  std::string address = n->address.empty() ? n->name : n->address;
  rpc::RpcClient client;
  ROTA_RETURN_IF_ERROR(client.Connect(address, port, std::chrono::seconds(5)));
  std::string body = request.SerializeAsString();
  Result<std::string> credential = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return issuer_.Issue(auth::RpcBindingBytes(method, body));
  }();
  if (!credential.ok()) return credential.status();
  Result<rpc::Response> answer = client.Call(method, *credential, body, timeout);
  if (!answer.ok()) return answer.status();
  return answer->ToStatus();
}

}  // namespace rota::cli
