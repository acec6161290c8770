#include "auth/signed_send.h"

#include <chrono>
#include <thread>

namespace rota::auth {

Status SendSigned(CredentialIssuer& issuer, std::string_view bound_bytes,
                  const std::function<Status(const std::string& credential)>& send,
                  UnixClock clock) {
  Result<std::string> credential = issuer.Issue(bound_bytes);
  if (!credential.ok()) return credential.status();
  Status verdict = send(*credential);
  int64_t started_at = 0;
  if (!IsStaleCredential(verdict, &started_at)) return verdict;

  // A credential dated the daemon's start second is stale too: wait for the
  // next one. Polled, since `clock` is whole seconds; bounded, since a clock
  // far behind the daemon's cannot be waited out.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (clock() <= started_at && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  credential = issuer.Issue(bound_bytes);
  if (!credential.ok()) return credential.status();
  return send(*credential);
}

}  // namespace rota::auth
