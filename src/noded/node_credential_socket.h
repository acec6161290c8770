#pragma once

// rotad's credential socket (auth/credential_socket.h): on a compute node,
// rotad signs auth/slurm credentials for the local users, who may not read
// slurm.key, as rota-authd does on login hosts.

#include <memory>

#include "auth/credential.h"
#include "auth/credential_socket_server.h"

namespace rota::noded {

// Serves settings.credential_socket under auth/slurm; null under another
// AuthType, or (after a warning in the log) when the socket cannot be served:
// the node's own work does not need it, and several rotad on one host (a test
// cluster) share one socket, served by whichever started first.
std::unique_ptr<auth::CredentialSocketServer> ServeNodeCredentials(
    const auth::AuthSettings& settings);

}  // namespace rota::noded
