#pragma once

// auth/munge: credentials from the local munged (libmunge). The credential is
// munge's own text ("MUNGE:...:") whose payload is the SHA-256 of the bound
// bytes. munged vouches for uid/gid (from the socket peer) and enforces its own
// TTL and replay protection with its own clock, so Verify ignores `now_unix`.
// Each call opens its own munge context: contexts are not thread-safe.

#include <string>
#include <string_view>

#include "auth/credential.h"

namespace rota::auth {

class MungeIssuer final : public CredentialIssuer {
 public:
  // `socket_path`: munged's socket; empty means libmunge's default.
  explicit MungeIssuer(std::string socket_path);

  // kUnavailable when munged cannot be reached.
  Result<std::string> Issue(std::string_view bound_bytes) override;

 private:
  const std::string socket_path_;
};

class MungeVerifier final : public CredentialVerifier {
 public:
  explicit MungeVerifier(std::string socket_path);

  Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                          int64_t now_unix) override;
  // The form only ("MUNGE:...:", no NUL): decoding here would spend munged's
  // replay check before Verify runs.
  Status Screen(std::string_view credential, int64_t now_unix) override;

 private:
  const std::string socket_path_;
};

}  // namespace rota::auth
