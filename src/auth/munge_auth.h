#pragma once

// auth/munge: credentials from the local munged (libmunge). The credential is
// munge's own text ("MUNGE:...:") whose payload is the SHA-256 of the bound
// bytes. munged vouches for uid/gid (from the socket peer) and enforces its own
// TTL and replay protection with its own clock, so Verify ignores `now_unix`.
// Each call opens its own munge context: contexts are not thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
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
  // `max_screened`: credentials Screen may hold for Verify at once.
  explicit MungeVerifier(std::string socket_path, size_t max_screened = 65536);

  Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                          int64_t now_unix) override;
  // Decodes the credential with munged, which checks it and spends its replay
  // entry, and keeps what it vouches for until Verify asks for it (Verify
  // then checks only the binding). A credential screened and never verified
  // (its connection dropped) is forgotten once its munge TTL has run out.
  // Errors: kPermissionDenied; kUnavailable when munged cannot be reached or
  // max_screened credentials are held already.
  Status Screen(std::string_view credential, int64_t now_unix) override;

 private:
  struct Decoded {
    Identity identity;
    std::string payload;     // The SHA-256 of the bound bytes, if genuine.
    int64_t expires_at = 0;  // Unix s: encode time + TTL.
  };
  Result<Decoded> Decode(std::string_view credential);

  const std::string socket_path_;
  const size_t max_screened_;
  std::mutex mutex_;
  std::map<std::string, Decoded, std::less<>> screened_;  // GUARDED_BY(mutex_)
};

}  // namespace rota::auth
