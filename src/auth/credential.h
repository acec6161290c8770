#pragma once

// Credentials: every RPC carries one, naming the uid/gid of the process that
// sent it and bound to the request's bytes (method id + body), so a credential
// cannot be lifted onto another request. Three mechanisms sit behind two small
// interfaces:
//   auth/munge  libmunge; munged supplies identity, TTL and replay protection.
//   auth/slurm  a shared key file (slurm.key) and HMAC-SHA256; TTL and replay
//               cache are ours (slurm_key_auth.h).
//   auth/none   unsigned, for tests only (none_auth.h). NEVER in production:
//               anyone can claim to be root.
//
// Typical use:
//   client:     cred = issuer->Issue(RpcBindingBytes(method, body));
//   controller: id = verifier->Verify(cred, RpcBindingBytes(method, body), now);
// Every refusal is a Status with code kPermissionDenied saying why.
//
// Users who may not read slurm.key (auth/slurm) get their credentials from the
// credential socket (credential_socket.h): MakeIssuer falls back to it when
// opening the key fails with EACCES.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::auth {

// Who sent a request, as vouched for by its credential.
struct Identity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  bool operator==(const Identity&) const = default;
};

// The slurm.conf keys that choose and configure the mechanism.
struct AuthSettings {
  std::string auth_type = "auth/munge";  // "auth/slurm" | "auth/munge" | "auth/none"
  // auth/slurm: the shared key file. Slurm keeps it as slurm.key beside
  // slurm.conf; the caller resolves that default (auth does not read slurm.conf).
  std::string key_path;
  // auth/munge: munged's socket; empty means libmunge's default
  // (/run/munge/munge.socket.2).
  std::string munge_socket;
  // auth/slurm: the credential socket that rotad and rota-authd serve and the
  // commands of users who cannot read the key ask (credential_socket.h).
  std::string credential_socket = "/run/rota/auth.socket";
  // AuthAltTypes=auth/jwt: the jwt_key file (AuthAltParameters=jwt_key=PATH,
  // default StateSaveLocation/jwt_hs256.key). Empty: tokens are not accepted.
  std::string jwt_key_path;
  // SlurmUser, who like root may act for other users with its token.
  std::string slurm_user;
};

// Seconds since the Unix epoch. Injected so tests can move time by hand.
using UnixClock = std::function<int64_t()>;
int64_t SystemUnixNow();

// The bytes a request's credential is bound to: the method id (2 bytes,
// little-endian) followed by the serialized request body. Client and server
// must build them the same way, hence one function.
std::string RpcBindingBytes(uint16_t method, std::string_view body);

// Creates credentials for the calling process's identity (effective uid/gid,
// which is what munged reports too). Thread-safe.
class CredentialIssuer {
 public:
  virtual ~CredentialIssuer() = default;
  // A credential bound to `bound_bytes` (see RpcBindingBytes). Opaque bytes.
  virtual Result<std::string> Issue(std::string_view bound_bytes) = 0;
};

// Checks credentials. Thread-safe: called from several RPC threads at once.
class CredentialVerifier {
 public:
  virtual ~CredentialVerifier() = default;
  // The identity a credential vouches for, if it is genuine, bound to exactly
  // `bound_bytes`, within its time to live at `now_unix` and not seen before.
  // Errors: kPermissionDenied with the reason; kUnavailable when the mechanism
  // itself is down (munged unreachable, replay cache full).
  virtual Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                                  int64_t now_unix) = 0;
  // The part of Verify that needs no bound bytes, for before a request's body
  // has arrived: is `credential` well formed and, as far as the mechanism can
  // tell without the binding, genuine and within its time to live? Records
  // nothing (no replay entry), so Verify must still follow. The RPC server
  // calls it so that a peer without a credential cannot make a daemon read and
  // hold a large body. Errors: kPermissionDenied with the reason.
  virtual Status Screen(std::string_view credential, int64_t now_unix) = 0;
};

// Builds the mechanism named by settings.auth_type. auth/slurm loads and checks
// the key file here, so a bad key fails at start-up, not at the first request.
Result<std::unique_ptr<CredentialIssuer>> MakeIssuer(const AuthSettings& settings);
Result<std::unique_ptr<CredentialVerifier>> MakeVerifier(const AuthSettings& settings);

// Status helper: kPermissionDenied with `why`.
Status PermissionDenied(std::string why);

// The refusal of a genuine credential issued (`issued_at`, Unix ms) at or before
// the instant its verifier's daemon started (`started_at`, ms): it restarted
// since it was signed, and its replay cache cannot tell whether the previous
// run accepted it. kPermissionDenied, with a message IsStaleCredential knows,
// so that no new status code has to cross the wire.
Status StaleCredential(int64_t issued_at, int64_t started_at);
// The refusal of a genuine credential dated more than `max_skew_s` after its
// verifier's `now` (ms): the sender signs again once its clock has passed
// `now`. After a step back of the clocks, a request signed just before the
// step and checked just after is dated ahead by the step: signed again, it
// goes through; a sender whose clock runs ahead is refused again.
Status FutureCredential(int64_t issued_at, int64_t now, int64_t max_skew_s);
// The refusal of a genuine credential issued (`issued_at`, Unix s) more than
// `ttl_s` before its verifier's `now` (s): a clock stepped forward while it
// was in flight, or the sender's clock runs behind by more than that. The
// sender signs again (a clock in step then passes).
Status AgedCredential(int64_t issued_at, int64_t now, int64_t ttl_s);
// Whether `status` is a StaleCredential, FutureCredential or AgedCredential refusal (as sent
// back by a daemon); then `*started_at` (if not null) is the instant (Unix
// ms) the sender's clock must pass before it signs again.
bool IsStaleCredential(const Status& status, int64_t* started_at = nullptr);

}  // namespace rota::auth
