#include "auth/jwt_token.h"

#include <jwt.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "auth/credential.h"

namespace rota::auth {
namespace {

struct JwtFree {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

const unsigned char* KeyBytes(std::string_view key) {
  return reinterpret_cast<const unsigned char*>(key.data());
}

}  // namespace

Result<std::string> LoadJwtKey(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return Status(StatusCode::kIoError, "jwt_key " + path + ": cannot be read");
  }
  if ((st.st_mode & 077) != 0) {
    return PermissionDenied("jwt_key " + path +
                            " may be read by others than its owner (chmod 0600 it)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return Status(StatusCode::kIoError, "jwt_key " + path + ": cannot be read");
  }
  std::string key = bytes.str();
  if (key.empty()) return InvalidArgument("jwt_key " + path + " is empty");
  return key;
}

Result<std::string> MintToken(std::string_view key, std::string_view user, int64_t now,
                              int64_t lifespan_s) {
  if (user.empty()) return InvalidArgument("a token must name a user");
  if (lifespan_s <= 0) return InvalidArgument("a token's lifespan must be positive");
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return Status(StatusCode::kInternal, "libjwt: cannot make a token");
  JwtPtr token(raw);
  const std::string user_text(user);
  if (jwt_add_grant_int(token.get(), "iat", static_cast<long>(now)) != 0 ||
      jwt_add_grant_int(token.get(), "exp", static_cast<long>(now + lifespan_s)) != 0 ||
      jwt_add_grant(token.get(), "sun", user_text.c_str()) != 0 ||
      jwt_set_alg(token.get(), JWT_ALG_HS256, KeyBytes(key), static_cast<int>(key.size())) != 0) {
    return Status(StatusCode::kInternal, "libjwt: cannot fill a token");
  }
  char* encoded = jwt_encode_str(token.get());
  if (encoded == nullptr) return Status(StatusCode::kInternal, "libjwt: cannot sign a token");
  std::string out(encoded);
  free(encoded);  // NOLINT: libjwt hands out malloc()ed text
  return out;
}

Result<TokenClaims> VerifyToken(std::string_view key, std::string_view token, int64_t now) {
  if (token.empty()) return PermissionDenied("no token");
  const std::string text(token);
  jwt_t* raw = nullptr;
  // jwt_decode checks the signature with `key` when the token's algorithm
  // needs one; a token signed with "none" decodes without it, hence the
  // algorithm check after.
  if (jwt_decode(&raw, text.c_str(), KeyBytes(key), static_cast<int>(key.size())) != 0 ||
      raw == nullptr) {
    return PermissionDenied("the token is malformed or not signed with this cluster's jwt_key");
  }
  JwtPtr decoded(raw);
  if (jwt_get_alg(decoded.get()) != JWT_ALG_HS256) {
    return PermissionDenied("the token is not signed with HS256");
  }
  TokenClaims claims;
  const char* user = jwt_get_grant(decoded.get(), "sun");
  if (user == nullptr || *user == '\0') return PermissionDenied("the token names no user (sun)");
  claims.user = user;
  errno = 0;
  claims.expires_at = jwt_get_grant_int(decoded.get(), "exp");
  if (errno != 0 || claims.expires_at == 0) return PermissionDenied("the token has no expiry");
  claims.issued_at = jwt_get_grant_int(decoded.get(), "iat");
  if (claims.expires_at <= now) return PermissionDenied("the token has expired");
  return claims;
}

}  // namespace rota::auth
