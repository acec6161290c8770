#pragma once

// Keeps what a remote peer can trigger from flooding the log: lets the first
// event through, then at most one per interval, and says how many it held back.

#include <chrono>
#include <cstdint>
#include <mutex>

namespace rota {

// Thread-safe.
class LogRateLimit {
 public:
  explicit LogRateLimit(std::chrono::seconds interval) : interval_(interval) {}

  // True when this event should be logged now; `*suppressed` then says how many
  // were not since the last one that was.
  bool ShouldLog(uint64_t* suppressed) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    if (logged_once_ && now - last_ < interval_) {
      ++suppressed_;
      return false;
    }
    logged_once_ = true;
    last_ = now;
    *suppressed = suppressed_;
    suppressed_ = 0;
    return true;
  }

 private:
  const std::chrono::seconds interval_;
  std::mutex mutex_;
  bool logged_once_ = false;                    // GUARDED_BY(mutex_)
  std::chrono::steady_clock::time_point last_;  // GUARDED_BY(mutex_)
  uint64_t suppressed_ = 0;                     // GUARDED_BY(mutex_)
};

}  // namespace rota
