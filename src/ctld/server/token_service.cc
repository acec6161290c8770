// scontrol token: a JSON Web Token (auth/jwt) for the caller, or for any user
// when root or SlurmUser asks. Minted here because only the controller and
// rotadbd hold the jwt_key; the token then travels with REST requests through
// rotarestd, which forwards it (auth/jwt_credential.h).
#include "auth/jwt_token.h"
#include "ctld/server/controller_service.h"
#include "token.pb.h"

namespace rota::ctld {

void ControllerService::IssueToken(const Caller& caller, const std::string& body,
                                   rpc::Responder respond) {
  wire::TokenRequest req;
  if (!req.ParseFromString(body)) {
    respond.Fail(InvalidArgument("malformed request"));
    return;
  }
  if (!jwt_key_) {
    respond.Fail(Status(StatusCode::kFailedPrecondition,
                        "tokens are not enabled: set AuthAltTypes=auth/jwt in slurm.conf"));
    return;
  }
  const std::string user = req.username().empty() ? caller.user : req.username();
  if (user != caller.user && !caller.privileged) {
    respond.Fail(Status(StatusCode::kPermissionDenied,
                        "Access/permission denied: only root and SlurmUser may make a "
                        "token for another user"));
    return;
  }
  if (req.lifespan_s() < 0) {
    respond.Fail(InvalidArgument("Invalid lifespan"));
    return;
  }
  const int64_t lifespan = req.lifespan_s() == 0 ? kDefaultTokenLifespanS : req.lifespan_s();
  Result<std::string> token = auth::MintToken(*jwt_key_, user, auth::SystemUnixNow(), lifespan);
  if (!token.ok()) {
    respond.Fail(token.status());
    return;
  }
  wire::TokenResponse out;
  out.set_token(*token);
  respond(0, out.SerializeAsString());
}

}  // namespace rota::ctld
