#pragma once

// rotad's calls to the controller (registration, heartbeats, job exits), each
// with a credential for this process. One connection, reopened when it
// breaks; the backup controller is tried when the primary does not answer.
// Thread-safe: calls are serialised.

#include <google/protobuf/message_lite.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "auth/credential.h"
#include "noded/node_settings.h"
#include "rpc/client.h"

namespace rota::noded {

class ControllerLink {
 public:
  ControllerLink(std::vector<ControllerAddress> controllers,
                 std::unique_ptr<auth::CredentialIssuer> issuer,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Sends `request` as `method`. Errors: kUnavailable when no controller could
  // be reached (worth retrying); otherwise the controller's own answer.
  Status Call(uint16_t method, const google::protobuf::MessageLite& request);
  // The same, parsing the answer into `response`.
  Status Call(uint16_t method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response);

 private:
  Status ConnectLocked();

  const std::vector<ControllerAddress> controllers_;
  const std::unique_ptr<auth::CredentialIssuer> issuer_;  // Thread-safe.
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  rpc::RpcClient client_;  // Guarded by mu_.
  size_t connected_ = 0;   // Which controller client_ is connected to. Guarded by mu_.
  size_t next_ = 0;        // Where the next connection starts looking. Guarded by mu_.
};

}  // namespace rota::noded
