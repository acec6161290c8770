#pragma once

// The local time zone's offset from UTC, for the formatters (which never read
// the clock or TZ themselves).

#include <cstdint>
#include <ctime>

namespace rota::cli {

inline int64_t UtcOffsetSeconds(int64_t at) {
  time_t t = static_cast<time_t>(at);
  tm local{};
  localtime_r(&t, &local);
  return local.tm_gmtoff;
}

}  // namespace rota::cli
