#pragma once

// auth/slurm: credentials signed with a shared key (slurm.key).
//
// Wire format (little-endian), 97 bytes:
//   payload: u8 version (=2) | u32 uid | u32 gid | i64 issued_at (Unix ms)
//            | 16-byte random nonce | SHA-256 of the bound bytes
//   mac:     HMAC-SHA256(key, payload)
// Anyone holding the key can vouch for any uid, which is why the key file must
// be readable by its owner only (slurm_key_file.h). Version 2 dates credentials
// in milliseconds (version 1, in seconds, is refused): a daemon refuses those
// issued before it started, and the finer date makes that instant exact.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "auth/credential.h"
#include "auth/replay_cache.h"
#include "auth/sha256.h"
#include "auth/slurm_key_file.h"

namespace rota::auth {

inline constexpr size_t kSlurmCredentialSize = 97;

// Milliseconds since the Unix epoch: what auth/slurm credentials are dated with.
int64_t SystemUnixMillis();

// A credential naming `who`, dated `issued_at_ms`, bound to the request whose
// bound bytes have SHA-256 `digest`. SlurmKeyIssuer signs for its own process;
// the credential socket (credential_socket_server.h) signs for its peer.
Result<std::string> SignSlurmCredential(const SlurmKey& key, Identity who, int64_t issued_at_ms,
                                        const Sha256Digest& digest);

class SlurmKeyIssuer final : public CredentialIssuer {
 public:
  // `self` is the identity every credential names; `millis_clock` (Unix ms)
  // stamps issued_at.
  SlurmKeyIssuer(std::shared_ptr<const SlurmKey> key, Identity self,
                 UnixClock millis_clock = SystemUnixMillis);

  Result<std::string> Issue(std::string_view bound_bytes) override;

 private:
  const std::shared_ptr<const SlurmKey> key_;
  const Identity self_;
  const UnixClock clock_;
};

class SlurmKeyVerifier final : public CredentialVerifier {
 public:
  struct Options {
    int64_t ttl_seconds = 300;              // Older credentials are expired.
    int64_t max_future_skew_seconds = 300;  // Credentials dated further ahead are refused.
    // Credentials accepted within one TTL beyond which Verify fails closed
    // (kUnavailable). ~100 bytes each: the default bounds the cache near 100 MiB.
    size_t max_replay_entries = size_t{1} << 20;
    // When this verifier's daemon started (Unix ms). The replay cache lives in
    // memory only, so a credential issued at or before this instant may have
    // been accepted by the daemon's previous run: it is refused as stale
    // (StaleCredential), and clients re-sign and retry (SendSigned). The
    // default accepts any date; MakeVerifier sets the start.
    int64_t started_at_ms = INT64_MIN;
    // A `now` this many seconds behind the latest one seen is the wall clock
    // stepped back (NTP, `date -s`). The replay cache then evicts by the new
    // time (else every credential would read as expired until the clock
    // caught up), and credentials issued at or before the step's detection
    // are refused as stale, as after a start: their nonces may have been
    // evicted under the old time.
    int64_t clock_step_back_seconds = 5;
  };

  explicit SlurmKeyVerifier(std::shared_ptr<const SlurmKey> key);
  SlurmKeyVerifier(std::shared_ptr<const SlurmKey> key, Options options);

  Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                          int64_t now_unix) override;
  // Size, format version, MAC and expiry: all but the binding, replay and a
  // date ahead of the clock (Verify answers that one, so it can be signed again).
  Status Screen(std::string_view credential, int64_t now_unix) override;

  // Nonces remembered now (for tests and diagnostics).
  size_t replay_cache_size() const { return replay_cache_.size(); }

 private:
  // Credentials issued at or before the returned instant (Unix ms) are stale:
  // the daemon's start, or the latest step back of the clock seen at `now_unix`.
  int64_t StaleUpToMs(int64_t now_unix);

  const std::shared_ptr<const SlurmKey> key_;
  const Options options_;
  ReplayCache replay_cache_;
  std::mutex clock_mutex_;
  int64_t latest_now_ = INT64_MIN;  // GUARDED_BY(clock_mutex_)
  int64_t stale_up_to_ms_;          // GUARDED_BY(clock_mutex_)
};

}  // namespace rota::auth
