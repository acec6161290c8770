#include "cli/format/time_text.h"

#include <cstdio>

namespace rota::cli::format {
namespace {

struct CivilTime {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
  int hour, minute, second;
  int weekday;  // 0 = Sunday
};

// Howard Hinnant's days-to-civil algorithm: exact for the proleptic Gregorian
// calendar and independent of libc's time zone state.
CivilTime ToCivil(int64_t t) {
  int64_t days = t / 86400;
  int64_t secs = t % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  CivilTime c{};
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs / 60 % 60);
  c.second = static_cast<int>(secs % 60);
  // 1970-01-01 was a Thursday.
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
  return c;
}

}  // namespace

std::string FormatIsoTime(int64_t t, int64_t utc_offset_s) {
  const CivilTime c = ToCivil(t + utc_offset_s);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(c.year),
                c.month, c.day, c.hour, c.minute, c.second);
  return buf;
}

std::string FormatCtime(int64_t t, int64_t utc_offset_s) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const CivilTime c = ToCivil(t + utc_offset_s);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s %s %2d %02d:%02d:%02d %lld", kDays[c.weekday],
                kMonths[c.month - 1], c.day, c.hour, c.minute, c.second,
                static_cast<long long>(c.year));
  return buf;
}

}  // namespace rota::cli::format
