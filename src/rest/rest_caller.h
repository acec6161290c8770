#pragma once

// Who a REST request acts for, as slurmrestd decides it:
//   rest_auth/jwt    X-SLURM-USER-TOKEN (and X-SLURM-USER-NAME) on any socket;
//                    the token is forwarded to the daemons, which check it
//                    (auth/jwt_credential.h): rotarestd holds no key.
//   rest_auth/local  a Unix socket whose peer runs as rotarestd's own user;
//                    requests go out with rotarestd's own credentials.
// Anything else is refused with 401 before a daemon is asked.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "rest/rest_types.h"

namespace rota::rest {

struct RestAuthOptions {
  bool jwt = true;
  bool local = true;
  uint32_t own_uid = 0;              // rotarestd's uid (geteuid()).
  auth::AuthSettings auth_settings;  // For rest_auth/local's own credentials.
};

struct RestCaller {
  std::string user;
  uint32_t uid = 0;
  // Credentials for one client of the daemons (each client owns its issuer).
  std::function<Result<std::unique_ptr<auth::CredentialIssuer>>()> make_issuer;
};

// kPermissionDenied (answered 401) with what the client must send.
Result<RestCaller> ResolveRestCaller(const HttpRequest& request, const RestAuthOptions& options);

// The "sun" claim of a token, read without checking it (rotarestd has no
// key): only to name the user when X-SLURM-USER-NAME is absent; the daemons
// check the token itself. Empty when the token cannot be read.
std::string UnverifiedTokenUser(const std::string& token);

}  // namespace rota::rest
