#pragma once

// One request from a command to a daemon: signed, sent, and signed again once
// when the daemon has restarted since the credential was made
// (auth::SendSigned), as every client connection of the commands does it.

#include <chrono>
#include <cstdint>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "rpc/client.h"

namespace rota::cli {

// The answer's body, or the transport's or the daemon's error.
// REQUIRES: `rpc` is connected.
Result<std::string> SignedCall(rpc::RpcClient& rpc, auth::CredentialIssuer& issuer, uint16_t method,
                               const std::string& body, std::chrono::milliseconds timeout);

}  // namespace rota::cli
