#pragma once

// Tells a step of the wall clock (NTP's step, `date -s`) from its ordinary
// advance: the wall clock and the monotonic one advance together except when
// the wall clock is set. NTP's slewing (at most 0.5 ms a second) stays far
// below the threshold between two samples, and so does the rounding of a
// wall clock read in whole seconds.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>

namespace rota::ctld {

class ClockStepWatch {
 public:
  explicit ClockStepWatch(std::chrono::milliseconds threshold = std::chrono::seconds(3))
      : threshold_ms_(threshold.count()) {}

  // The step in whole seconds between the previous sample and this one (wall
  // clock `wall_s`, monotonic `steady`); 0 for none and for the first sample.
  int64_t Sample(int64_t wall_s, std::chrono::steady_clock::time_point steady) {
    const int64_t steady_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(steady.time_since_epoch()).count();
    const int64_t offset_ms = wall_s * 1000 - steady_ms;
    const std::optional<int64_t> last = last_offset_ms_;
    last_offset_ms_ = offset_ms;
    if (!last || std::llabs(offset_ms - *last) < threshold_ms_) return 0;
    return static_cast<int64_t>(std::llround(static_cast<double>(offset_ms - *last) / 1000.0));
  }

 private:
  const int64_t threshold_ms_;
  std::optional<int64_t> last_offset_ms_;  // Wall minus monotonic at the last sample
};

}  // namespace rota::ctld
