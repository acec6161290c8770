#pragma once

// Remembers the nonces of credentials already accepted, for as long as those
// credentials would still pass the time check, so none is accepted twice.
// Thread-safe (one mutex; each operation is O(log n) on an expiry heap plus
// O(1) on a hash set). Memory is bounded two ways: entries are evicted as soon
// as they expire, and a hard cap refuses new entries (fail closed) when more
// than `max_entries` credentials arrive within one time to live.

#include <array>
#include <cstdint>
#include <mutex>
#include <queue>
#include <unordered_set>
#include <utility>
#include <vector>

namespace rota::auth {

class ReplayCache {
 public:
  using Nonce = std::array<uint8_t, 16>;

  enum class Outcome {
    kFresh,     // First sighting; now remembered.
    kReplayed,  // Seen before and not yet expired.
    kFull,      // Not remembered: the cap is reached. The caller must refuse.
    kExpired,   // expires_at is before a `now` already used for eviction, so a
                // first sighting could no longer be told from a replay. Refuse.
  };

  explicit ReplayCache(size_t max_entries);

  // Records `nonce` until `expires_at` (inclusive). First evicts every entry
  // whose expires_at is before `now`. Callers on several threads may pass
  // slightly different `now` values; eviction never goes back in time.
  Outcome Insert(const Nonce& nonce, int64_t expires_at, int64_t now);

  // After the wall clock stepped back: evicts by `now` from here on (entries
  // still held stay until their own expiry). Credentials whose nonces were
  // evicted under the old time are the caller's to refuse.
  void RestartEviction(int64_t now);

  // Entries held now (expired ones are dropped only by Insert).
  size_t size() const;

 private:
  // Nonces are inserted only after the credential's MAC checked out, so they
  // are uniformly random bytes: their first 8 bytes are a good hash.
  struct NonceHash {
    size_t operator()(const Nonce& nonce) const;
  };
  using Expiry = std::pair<int64_t, Nonce>;  // (expires_at, nonce), earliest on top.

  void EvictExpired(int64_t now);  // REQUIRES: mutex_ held.

  const size_t max_entries_;
  mutable std::mutex mutex_;
  std::unordered_set<Nonce, NonceHash> seen_;  // GUARDED_BY(mutex_)
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>>
      expiry_queue_;  // GUARDED_BY(mutex_)
  // Entries expiring before this have been (or may have been) evicted.
  int64_t evicted_before_ = INT64_MIN;  // GUARDED_BY(mutex_)
};

}  // namespace rota::auth
