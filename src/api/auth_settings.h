#pragma once

// The credential settings slurm.conf implies, shared by the daemons and the
// commands: AuthType, the key file slurm.key beside slurm.conf, and from
// AuthInfo=socket=PATH munged's socket (auth/munge) or the credential socket
// (auth/slurm; default /run/rota/auth.socket, see auth/credential_socket.h).

#include "auth/credential.h"
#include "conf/cluster_config.h"

namespace rota::api {

auth::AuthSettings AuthSettingsFor(const conf::ClusterConfig& config);

}  // namespace rota::api
