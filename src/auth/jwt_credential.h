#pragma once

// Tokens on the framed RPC. rotarestd acts for a REST client by sending the
// client's user name and token in place of a credential; rotactld and rotadbd
// accept such a "credential" when AuthAltTypes=auth/jwt, checking the token
// with the jwt_key. Unlike a MUNGE or slurm.key credential a token is not
// bound to one request: it is a bearer token until it expires, as in Slurm.
//
// Wire form: "rota-jwt\n" USER "\n" TOKEN. USER is the user the request acts
// for (X-SLURM-USER-NAME); it must be the token's own user unless the token
// belongs to root or SlurmUser, who may act for anyone (as slurmrestd allows).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/credential.h"

namespace rota::auth {

inline constexpr std::string_view kJwtCredentialPrefix = "rota-jwt\n";

std::string JwtCredential(std::string_view user, std::string_view token);

// Whether `credential` is in the token form (not whether it is genuine).
bool IsJwtCredential(std::string_view credential);

// "Issues" the same token credential for every request: what rotarestd hands
// the daemons' clients for one REST request.
class JwtBearerIssuer final : public CredentialIssuer {
 public:
  JwtBearerIssuer(std::string user, std::string token) : credential_(JwtCredential(user, token)) {}
  Result<std::string> Issue(std::string_view) override { return credential_; }

 private:
  std::string credential_;
};

// A user's uid and primary gid by name (getpwnam_r); nullopt when unknown.
std::optional<Identity> LookupUserIdentity(const std::string& name);

// Accepts token credentials as well as the primary mechanism's.
class JwtAltVerifier final : public CredentialVerifier {
 public:
  struct Options {
    std::string key;                         // The jwt_key's bytes.
    std::optional<uint32_t> slurm_user_uid;  // Besides root, may act for others.
    std::function<std::optional<Identity>(const std::string&)> lookup = LookupUserIdentity;
  };
  JwtAltVerifier(std::unique_ptr<CredentialVerifier> primary, Options options)
      : primary_(std::move(primary)), options_(std::move(options)) {}

  Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                          int64_t now_unix) override;
  Status Screen(std::string_view credential, int64_t now_unix) override;

 private:
  Result<Identity> VerifyToken(std::string_view credential, int64_t now_unix);

  std::unique_ptr<CredentialVerifier> primary_;
  Options options_;
};

// MakeVerifier, wrapped in a JwtAltVerifier when settings.jwt_key_path is set:
// what rotactld and rotadbd check requests with.
Result<std::unique_ptr<CredentialVerifier>> MakeDaemonVerifier(const AuthSettings& settings);

}  // namespace rota::auth
