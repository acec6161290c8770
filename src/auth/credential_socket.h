#pragma once

// The credential socket (auth/slurm): a local Unix stream socket on which a
// daemon that holds slurm.key (rotad on compute nodes, rota-authd on login
// hosts) signs credentials for processes that may not read the key. The
// identity signed is the one the kernel reports for the connecting process
// (SO_PEERCRED: its effective uid and gid when it connected); the client
// sends only the digest of the bytes to bind, so it cannot ask for anyone
// else's identity.
//
// Wire protocol, one exchange per connection:
//   request:  "RCS1" | SHA-256 of the bound bytes (32 bytes)          36 bytes
//   answer:   u8 kind (0: credential, 1: error text) | u16 length (LE)
//             | that many bytes; then the server closes.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/credential.h"

namespace rota::auth {

inline constexpr std::string_view kCredentialSocketMagic = "RCS1";
inline constexpr size_t kCredentialSocketRequestSize = 4 + 32;
inline constexpr uint8_t kCredentialSocketAnswerCredential = 0;
inline constexpr uint8_t kCredentialSocketAnswerError = 1;

// Gets each credential from the credential socket at `socket_path`. Used by
// MakeIssuer when the key cannot be read; `why_not_key` (the key's open error)
// is quoted when the socket does not answer either. Thread-safe.
class CredentialSocketIssuer final : public CredentialIssuer {
 public:
  explicit CredentialSocketIssuer(std::string socket_path, std::string why_not_key = "",
                                  std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // kUnavailable when nothing answers on the socket (no rotad or rota-authd on
  // this host); kPermissionDenied when the server refuses; kInternal for a
  // malformed answer.
  Result<std::string> Issue(std::string_view bound_bytes) override;

  const std::string& socket_path() const { return socket_path_; }

 private:
  const std::string socket_path_;
  const std::string why_not_key_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace rota::auth
