#include "auth/signed_send.h"

#include <chrono>
#include <thread>

#include "auth/slurm_key_auth.h"

namespace rota::auth {

Status SendSigned(CredentialIssuer& issuer, std::string_view bound_bytes,
                  const std::function<Status(const std::string& credential)>& send) {
  return SendSigned(issuer, bound_bytes, send, SystemUnixMillis);
}

Status SendSigned(CredentialIssuer& issuer, std::string_view bound_bytes,
                  const std::function<Status(const std::string& credential)>& send,
                  UnixClock millis_clock) {
  Result<std::string> credential = issuer.Issue(bound_bytes);
  if (!credential.ok()) return credential.status();
  Status verdict = send(*credential);
  // Signed again up to three times: a refusal for a credential dated ahead
  // (the clock stepped back while it was in flight) can be followed by one
  // for a credential within the second the daemon saw the step, and a
  // restart can come between.
  for (int resign = 0; resign < 3; ++resign) {
    int64_t started_at = 0;
    if (!IsStaleCredential(verdict, &started_at)) return verdict;
    // A clock behind the daemon's would date the new credential before its
    // start again: wait until it has passed. Bounded, since a clock far
    // behind cannot be waited out.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (millis_clock() <= started_at && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    credential = issuer.Issue(bound_bytes);
    if (!credential.ok()) return credential.status();
    verdict = send(*credential);
  }
  return verdict;
}

}  // namespace rota::auth
