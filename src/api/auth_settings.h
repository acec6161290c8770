#pragma once

// The credential settings slurm.conf implies, shared by the daemons and the
// commands: AuthType, the key file slurm.key beside slurm.conf, and munged's
// socket from AuthInfo=socket=PATH.

#include "auth/credential.h"
#include "conf/cluster_config.h"

namespace rota::api {

auth::AuthSettings AuthSettingsFor(const conf::ClusterConfig& config);

}  // namespace rota::api
