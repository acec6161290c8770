#include "auth/slurm_key_auth.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "auth/sha256.h"

namespace rota::auth {
namespace {

constexpr uint8_t kFormatVersion = 2;
constexpr size_t kVersionOffset = 0;
constexpr size_t kUidOffset = 1;
constexpr size_t kGidOffset = 5;
constexpr size_t kIssuedAtOffset = 9;
constexpr size_t kNonceOffset = 17;
constexpr size_t kDigestOffset = 33;
constexpr size_t kPayloadSize = 65;
constexpr size_t kMacSize = 32;
static_assert(kPayloadSize + kMacSize == kSlurmCredentialSize);

void PutLe(std::string& out, size_t offset, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t GetLe(std::string_view in, size_t offset, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= uint64_t{static_cast<uint8_t>(in[offset + i])} << (8 * i);
  }
  return value;
}

using Mac = std::array<uint8_t, kMacSize>;

Mac ComputeMac(const SlurmKey& key, std::string_view payload) {
  std::string_view key_bytes(reinterpret_cast<const char*>(key.bytes().data()), key.bytes().size());
  return HmacSha256(key_bytes, payload);
}

// The kernel's generator; OpenSSL's RAND would initialise its providers first.
bool FillRandom(char* out, size_t size) {
  while (size > 0) {
    ssize_t n = getrandom(out, size, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The credential's date, whole seconds (rounded down) for the time-to-live checks.
int64_t IssuedAtSeconds(int64_t issued_at_ms) {
  return issued_at_ms >= 0 ? issued_at_ms / 1000 : -((-(issued_at_ms + 1)) / 1000) - 1;
}

}  // namespace

int64_t SystemUnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SlurmKeyIssuer::SlurmKeyIssuer(std::shared_ptr<const SlurmKey> key, Identity self, UnixClock clock)
    : key_(std::move(key)), self_(self), clock_(std::move(clock)) {}

Result<std::string> SignSlurmCredential(const SlurmKey& key, Identity who, int64_t issued_at_ms,
                                        const Sha256Digest& digest) {
  std::string credential(kSlurmCredentialSize, '\0');
  credential[kVersionOffset] = static_cast<char>(kFormatVersion);
  PutLe(credential, kUidOffset, who.uid, 4);
  PutLe(credential, kGidOffset, who.gid, 4);
  PutLe(credential, kIssuedAtOffset, static_cast<uint64_t>(issued_at_ms), 8);
  if (!FillRandom(&credential[kNonceOffset], sizeof(ReplayCache::Nonce))) {
    return Internal("auth/slurm: the random number generator failed to produce a nonce");
  }
  std::memcpy(&credential[kDigestOffset], digest.data(), digest.size());
  const Mac mac = ComputeMac(key, std::string_view(credential).substr(0, kPayloadSize));
  std::memcpy(&credential[kPayloadSize], mac.data(), mac.size());
  return credential;
}

Result<std::string> SlurmKeyIssuer::Issue(std::string_view bound_bytes) {
  return SignSlurmCredential(*key_, self_, clock_(), Sha256(bound_bytes));
}

SlurmKeyVerifier::SlurmKeyVerifier(std::shared_ptr<const SlurmKey> key)
    : SlurmKeyVerifier(std::move(key), Options{}) {}

SlurmKeyVerifier::SlurmKeyVerifier(std::shared_ptr<const SlurmKey> key, Options options)
    : key_(std::move(key)),
      options_(options),
      replay_cache_(options.max_replay_entries),
      stale_up_to_ms_(options.started_at_ms) {}

int64_t SlurmKeyVerifier::StaleUpToMs(int64_t now_unix) {
  std::lock_guard lock(clock_mutex_);
  if (latest_now_ != INT64_MIN && now_unix < latest_now_ - options_.clock_step_back_seconds) {
    spdlog::warn(
        "the wall clock stepped back {} s; credentials issued before now must be signed again",
        latest_now_ - now_unix);
    replay_cache_.RestartEviction(now_unix);
    // Up to the whole second of detection: a credential of the old time
    // dated within it cannot be told from a new one. On the new clock, not
    // the greater of both: the start, or an earlier step's floor, may lie
    // ahead of it now.
    stale_up_to_ms_ = (now_unix + 1) * 1000 - 1;
    latest_now_ = now_unix;
  } else {
    latest_now_ = std::max(latest_now_, now_unix);
  }
  return stale_up_to_ms_;
}

Result<Identity> SlurmKeyVerifier::Verify(std::string_view credential, std::string_view bound_bytes,
                                          int64_t now_unix) {
  if (credential.size() != kSlurmCredentialSize) {
    return PermissionDenied(fmt::format("malformed credential: {} bytes, expected {}",
                                        credential.size(), kSlurmCredentialSize));
  }
  const auto version = static_cast<uint8_t>(credential[kVersionOffset]);
  if (version != kFormatVersion) {
    return PermissionDenied(
        fmt::format("malformed credential: format version {}, this verifier knows {}", version,
                    kFormatVersion));
  }
  // The MAC first: nothing else in an unauthenticated payload is worth reading.
  const Mac expected = ComputeMac(*key_, credential.substr(0, kPayloadSize));
  if (CRYPTO_memcmp(expected.data(), credential.data() + kPayloadSize, kMacSize) != 0) {
    return PermissionDenied(
        "bad MAC: credential forged, altered, or signed with a different slurm.key");
  }

  const auto issued_at_ms = static_cast<int64_t>(GetLe(credential, kIssuedAtOffset, 8));
  const int64_t issued_at = IssuedAtSeconds(issued_at_ms);
  // Compare against now +/- limits rather than subtracting from issued_at, which
  // could overflow for absurd values.
  if (issued_at < now_unix - options_.ttl_seconds) {
    return PermissionDenied(
        fmt::format("expired credential: issued at {}, now {}; its time to live is {} s", issued_at,
                    now_unix, options_.ttl_seconds));
  }
  if (issued_at > now_unix + options_.max_future_skew_seconds) {
    // A credential dated ahead is how a step back of the clock shows first:
    // note the step now, so that the instant its sender is told to sign
    // after is past the floor the step sets (else the second credential,
    // signed within the second of detection, would be refused as stale).
    const int64_t sign_after = std::max(now_unix * 1000, StaleUpToMs(now_unix));
    return FutureCredential(issued_at_ms, sign_after, options_.max_future_skew_seconds);
  }

  const Sha256Digest digest = Sha256(bound_bytes);
  if (CRYPTO_memcmp(digest.data(), credential.data() + kDigestOffset, digest.size()) != 0) {
    return PermissionDenied(
        "digest mismatch: credential was issued for a different request (method or body)");
  }

  // After the MAC and digest: only a genuine credential for this very request
  // can be called stale, which tells its sender to sign afresh.
  if (const int64_t stale_up_to = StaleUpToMs(now_unix); issued_at_ms <= stale_up_to) {
    return StaleCredential(issued_at_ms, stale_up_to);
  }

  // Last, so that a credential refused above never occupies the cache.
  ReplayCache::Nonce nonce;
  std::memcpy(nonce.data(), credential.data() + kNonceOffset, nonce.size());
  switch (replay_cache_.Insert(nonce, issued_at + options_.ttl_seconds, now_unix)) {
    case ReplayCache::Outcome::kFresh:
      break;
    case ReplayCache::Outcome::kReplayed:
      return PermissionDenied("replayed credential: this credential was already used");
    case ReplayCache::Outcome::kExpired:  // Aged between Screen and here
      return AgedCredential(issued_at, now_unix, options_.ttl_seconds);
    case ReplayCache::Outcome::kFull:
      return Status(StatusCode::kUnavailable,
                    fmt::format("replay cache full ({} credentials within {} s); retry later",
                                options_.max_replay_entries, options_.ttl_seconds));
  }

  return Identity{.uid = static_cast<uint32_t>(GetLe(credential, kUidOffset, 4)),
                  .gid = static_cast<uint32_t>(GetLe(credential, kGidOffset, 4))};
}

Status SlurmKeyVerifier::Screen(std::string_view credential, int64_t now_unix) {
  if (credential.size() != kSlurmCredentialSize ||
      static_cast<uint8_t>(credential[kVersionOffset]) != kFormatVersion) {
    return PermissionDenied("malformed credential: not an auth/slurm credential of this version");
  }
  const Mac expected = ComputeMac(*key_, credential.substr(0, kPayloadSize));
  if (CRYPTO_memcmp(expected.data(), credential.data() + kPayloadSize, kMacSize) != 0) {
    return PermissionDenied(
        "bad MAC: credential forged, altered, or signed with a different slurm.key");
  }
  // A genuine credential dated ahead passes the screen: Verify refuses it
  // with a FutureCredential answer on a connection that stays open, so that
  // its sender can sign again (a clock stepped back while it was in flight).
  const int64_t issued_at =
      IssuedAtSeconds(static_cast<int64_t>(GetLe(credential, kIssuedAtOffset, 8)));
  // Too old: answered so that its sender signs again (AgedCredential), as a
  // clock that stepped forward while it was in flight leaves it.
  if (issued_at < now_unix - options_.ttl_seconds) {
    return AgedCredential(issued_at, now_unix, options_.ttl_seconds);
  }
  return Status::Ok();
}

}  // namespace rota::auth
