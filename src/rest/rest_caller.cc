#include "rest/rest_caller.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "auth/jwt_credential.h"
#include "common/user_names.h"

namespace rota::rest {
namespace {

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-' || c == '+') return 62;
    if (c == '_' || c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

}  // namespace

std::string UnverifiedTokenUser(const std::string& token) {
  const size_t first = token.find('.');
  const size_t second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos) return "";
  std::optional<std::string> payload = Base64UrlDecode(token.substr(first + 1, second - first - 1));
  if (!payload) return "";
  nlohmann::json claims = nlohmann::json::parse(*payload, nullptr, false);
  if (!claims.is_object() || !claims.contains("sun") || !claims["sun"].is_string()) return "";
  return claims["sun"].get<std::string>();
}

Result<RestCaller> ResolveRestCaller(const HttpRequest& request, const RestAuthOptions& options) {
  const std::string token = request.Header("x-slurm-user-token");
  if (!token.empty()) {
    if (!options.jwt) {
      return auth::PermissionDenied("tokens are not accepted here (rest_auth/jwt is not enabled)");
    }
    RestCaller caller;
    caller.user = request.Header("x-slurm-user-name");
    if (caller.user.empty()) caller.user = UnverifiedTokenUser(token);
    if (caller.user.empty()) {
      return auth::PermissionDenied("the token names no user; send X-SLURM-USER-NAME");
    }
    std::optional<auth::Identity> who = auth::LookupUserIdentity(caller.user);
    if (!who) return auth::PermissionDenied("unknown user " + caller.user);
    caller.uid = who->uid;
    caller.make_issuer = [user = caller.user,
                          token]() -> Result<std::unique_ptr<auth::CredentialIssuer>> {
      return std::unique_ptr<auth::CredentialIssuer>(
          std::make_unique<auth::JwtBearerIssuer>(user, token));
    };
    return caller;
  }
  if (request.peer_uid && options.local) {
    if (*request.peer_uid != options.own_uid) {
      return auth::PermissionDenied("rest_auth/local: the client runs as uid " +
                                    std::to_string(*request.peer_uid) +
                                    ", not as rotarestd's uid " + std::to_string(options.own_uid) +
                                    "; send X-SLURM-USER-NAME and X-SLURM-USER-TOKEN instead");
    }
    RestCaller caller;
    caller.uid = options.own_uid;
    caller.user = UserNameOrNumber(options.own_uid);
    caller.make_issuer = [settings = options.auth_settings] { return auth::MakeIssuer(settings); };
    return caller;
  }
  return auth::PermissionDenied(
      "authentication required: send X-SLURM-USER-NAME and X-SLURM-USER-TOKEN (scontrol token)");
}

}  // namespace rota::rest
