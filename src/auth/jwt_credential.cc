#include "auth/jwt_credential.h"

#include "auth/jwt_token.h"
#include "common/user_names.h"

namespace rota::auth {

std::string JwtCredential(std::string_view user, std::string_view token) {
  std::string out(kJwtCredentialPrefix);
  out.append(user).append("\n").append(token);
  return out;
}

bool IsJwtCredential(std::string_view credential) {
  return credential.substr(0, kJwtCredentialPrefix.size()) == kJwtCredentialPrefix;
}

std::optional<Identity> LookupUserIdentity(const std::string& name) {
  std::optional<UserRecord> user = UserByName(name);
  if (!user) return std::nullopt;
  return Identity{user->uid, user->gid};
}

Result<Identity> JwtAltVerifier::VerifyToken(std::string_view credential, int64_t now_unix) {
  std::string_view rest = credential.substr(kJwtCredentialPrefix.size());
  size_t newline = rest.find('\n');
  if (newline == std::string_view::npos) return PermissionDenied("malformed token credential");
  const std::string user(rest.substr(0, newline));
  auto claims = auth::VerifyToken(options_.key, rest.substr(newline + 1), now_unix);
  if (!claims.ok()) return claims.status();
  const std::string& acting_user = user.empty() ? claims->user : user;
  if (acting_user != claims->user) {
    std::optional<Identity> owner = options_.lookup(claims->user);
    const bool may_proxy =
        owner &&
        (owner->uid == 0 || (options_.slurm_user_uid && owner->uid == *options_.slurm_user_uid));
    if (!may_proxy) {
      return PermissionDenied("the token belongs to " + claims->user + ", not to " + acting_user);
    }
  }
  std::optional<Identity> who = options_.lookup(acting_user);
  if (!who) return PermissionDenied("unknown user " + acting_user);
  return *who;
}

Result<Identity> JwtAltVerifier::Verify(std::string_view credential, std::string_view bound_bytes,
                                        int64_t now_unix) {
  if (IsJwtCredential(credential)) return VerifyToken(credential, now_unix);
  return primary_->Verify(credential, bound_bytes, now_unix);
}

Status JwtAltVerifier::Screen(std::string_view credential, int64_t now_unix) {
  if (IsJwtCredential(credential)) return VerifyToken(credential, now_unix).status();
  return primary_->Screen(credential, now_unix);
}

Result<std::unique_ptr<CredentialVerifier>> MakeDaemonVerifier(const AuthSettings& settings) {
  auto primary = MakeVerifier(settings);
  if (!primary.ok() || settings.jwt_key_path.empty()) return primary;
  auto key = LoadJwtKey(settings.jwt_key_path);
  if (!key.ok()) return key.status();
  JwtAltVerifier::Options options;
  options.key = std::move(key).value();
  if (!settings.slurm_user.empty()) {
    if (std::optional<Identity> slurm_user = LookupUserIdentity(settings.slurm_user)) {
      options.slurm_user_uid = slurm_user->uid;
    }
  }
  return std::unique_ptr<CredentialVerifier>(
      std::make_unique<JwtAltVerifier>(std::move(primary).value(), std::move(options)));
}

}  // namespace rota::auth
