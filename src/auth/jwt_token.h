#pragma once

// auth/jwt (AuthAltTypes=auth/jwt): HS256 JSON Web Tokens as Slurm makes and
// reads them. A token names a user in its "sun" claim and lapses at "exp";
// "iat" says when it was made. rotactld mints them (`scontrol token`) and
// rotactld and rotadbd accept them from rotarestd, which forwards a REST
// client's X-SLURM-USER-TOKEN. Built on libjwt.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::auth {

struct TokenClaims {
  std::string user;  // "sun"
  int64_t issued_at = 0;
  int64_t expires_at = 0;
};

// The key in AuthAltParameters=jwt_key=PATH: its bytes, whole. Refused when it
// cannot be read, is empty, or may be read by others than its owner (as with
// slurm.key: anyone holding it can speak for any user).
Result<std::string> LoadJwtKey(const std::string& path);

// A token for `user`, made at `now` (Unix s), valid `lifespan_s` seconds.
Result<std::string> MintToken(std::string_view key, std::string_view user, int64_t now,
                              int64_t lifespan_s);

// The claims of `token` when it is signed with `key` (HS256 only), names a
// user and has not expired at `now`. kPermissionDenied with the reason
// otherwise.
Result<TokenClaims> VerifyToken(std::string_view key, std::string_view token, int64_t now);

}  // namespace rota::auth
