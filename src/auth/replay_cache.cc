#include "auth/replay_cache.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace rota::auth {

size_t ReplayCache::NonceHash::operator()(const Nonce& nonce) const {
  uint64_t prefix;
  std::memcpy(&prefix, nonce.data(), sizeof(prefix));
  return static_cast<size_t>(prefix);
}

ReplayCache::ReplayCache(size_t max_entries) : max_entries_(max_entries) {}

ReplayCache::Outcome ReplayCache::Insert(const Nonce& nonce, int64_t expires_at, int64_t now) {
  std::lock_guard lock(mutex_);
  EvictExpired(now);
  if (expires_at < evicted_before_) return Outcome::kExpired;
  if (seen_.contains(nonce)) return Outcome::kReplayed;
  if (seen_.size() >= max_entries_) return Outcome::kFull;
  seen_.insert(nonce);
  expiry_queue_.emplace(expires_at, nonce);
  return Outcome::kFresh;
}

void ReplayCache::RestartEviction(int64_t now) {
  std::lock_guard lock(mutex_);
  evicted_before_ = std::min(evicted_before_, now);
}

size_t ReplayCache::size() const {
  std::lock_guard lock(mutex_);
  return seen_.size();
}

void ReplayCache::EvictExpired(int64_t now) {
  if (now <= evicted_before_) return;
  evicted_before_ = now;
  while (!expiry_queue_.empty() && expiry_queue_.top().first < evicted_before_) {
    seen_.erase(expiry_queue_.top().second);
    expiry_queue_.pop();
  }
}

}  // namespace rota::auth
