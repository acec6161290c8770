#pragma once

// One request to a daemon over a connected client: signed, sent, and signed
// again once when the daemon has restarted since the credential was made
// (auth::SendSigned). The commands' connections use it, and the controller's
// one-off reads from rotadbd.

#include <chrono>
#include <cstdint>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "rpc/client.h"

namespace rota::api {

// The answer's body, or the transport's or the daemon's error.
// REQUIRES: `rpc` is connected.
Result<std::string> SignedCall(rpc::RpcClient& rpc, auth::CredentialIssuer& issuer, uint16_t method,
                               const std::string& body, std::chrono::milliseconds timeout);

}  // namespace rota::api
