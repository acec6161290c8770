#pragma once

// Sending a signed request so that a daemon's restart does not fail it: a
// daemon refuses credentials issued at or before the second it started
// (StaleCredential, slurm_key_auth.h), so a request signed just before a
// restart comes back stale; SendSigned then signs it again and sends it once
// more. Used by every client that signs its own requests (the commands,
// rotad's link to the controller, the controller's messages to nodes).

#include <functional>
#include <string>
#include <string_view>

#include "auth/credential.h"

namespace rota::auth {

// Issues a credential for `bound_bytes` and calls `send` with it; `send`
// returns the daemon's verdict (its answer's status, or the transport error).
// When that verdict is a StaleCredential refusal, waits until this host's
// clock (`millis_clock`, Unix ms) has passed the daemon's start (at most 3 s:
// on one host, or with clocks in step, it already has) and calls `send` once
// more with a fresh credential. Returns the last verdict, or the issuer's
// error.
Status SendSigned(CredentialIssuer& issuer, std::string_view bound_bytes,
                  const std::function<Status(const std::string& credential)>& send);
Status SendSigned(CredentialIssuer& issuer, std::string_view bound_bytes,
                  const std::function<Status(const std::string& credential)>& send,
                  UnixClock millis_clock);

}  // namespace rota::auth
