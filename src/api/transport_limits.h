#pragma once

// What each daemon's RPC server accepts before a request reaches its handler
// (docs/reliability.md, "Transport limits"): the largest request body per
// method, the credential screen that runs before a body is read, and the
// connection caps and timeouts, which the environment may override:
//   ROTA_RPC_MAX_CONNECTIONS            open connections in all
//   ROTA_RPC_MAX_CONNECTIONS_PER_PEER   open connections from one IP address
//   ROTA_RPC_IDLE_TIMEOUT               seconds a connection may sit idle
//   ROTA_RPC_UNAUTHENTICATED_TIMEOUT    seconds to the first screened request
// (Slurm's nearest equivalents are SlurmctldParameters=conmgr_* options.)

#include <cstdlib>
#include <functional>

#include "auth/credential.h"
#include "common/status.h"
#include "rpc/server.h"

namespace rota::api {

// Request body limits for rotactld's, rotad's and rotadbd's methods.
// Submissions (script and environment; Slurm's max_script_size is 4 MB by
// default) and the controller's accounting batches may be large; queries and
// listings are small; anything else, and any unknown method, gets 1 MiB.
rpc::MethodBodyLimits ControllerBodyLimits();
rpc::MethodBodyLimits NodeBodyLimits();
rpc::MethodBodyLimits DbdBodyLimits();

// Reads an environment variable: nullptr when it is unset.
using EnvLookup = std::function<const char*(const char*)>;

// Sets on `options` the body limits, a credential screen that asks
// `verifier` (which must outlive the server), and the overrides above from
// `lookup`. Errors: kInvalidArgument naming a variable whose value is not a
// positive whole number.
Status ApplyTransportLimits(rpc::MethodBodyLimits body_limits, auth::CredentialVerifier* verifier,
                            rpc::ServerOptions* options, const EnvLookup& lookup = std::getenv);

}  // namespace rota::api
