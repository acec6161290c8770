#include "ctld/core/usage_reset.h"

#include "common/strings.h"

namespace rota::ctld {
namespace {

constexpr int64_t kDay = 86400;

struct CivilDate {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
};

// Days since 1970-01-01 to a proleptic Gregorian date, and back. Years are
// counted from March so that the leap day ends a year; 400-year eras repeat.
CivilDate DateOf(int64_t days) {
  days += 719468;  // From 0000-03-01 to 1970-01-01
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // 0 = March
  CivilDate d;
  d.day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  d.month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  d.year = year_of_era + era * 400 + (d.month <= 2 ? 1 : 0);
  return d;
}

int64_t DaysOf(CivilDate d) {
  const int64_t year = d.year - (d.month <= 2 ? 1 : 0);
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t shifted_month = d.month > 2 ? d.month - 3 : d.month + 9;
  const int64_t day_of_year = (153 * shifted_month + 2) / 5 + d.day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

}  // namespace

int64_t LastUsageReset(std::string_view period, int64_t now) {
  const int64_t today = FloorDiv(now, kDay);
  if (EqualsIgnoreCase(period, "DAILY")) return today * kDay;
  if (EqualsIgnoreCase(period, "WEEKLY")) {
    // 1970-01-01 was a Thursday: day 0 is 4 days after a Sunday.
    const int64_t since_sunday = (today + 4) % 7 < 0 ? (today + 4) % 7 + 7 : (today + 4) % 7;
    return (today - since_sunday) * kDay;
  }
  CivilDate d = DateOf(today);
  d.day = 1;
  if (EqualsIgnoreCase(period, "MONTHLY")) return DaysOf(d) * kDay;
  if (EqualsIgnoreCase(period, "QUARTERLY")) {
    d.month = (d.month - 1) / 3 * 3 + 1;
    return DaysOf(d) * kDay;
  }
  if (EqualsIgnoreCase(period, "YEARLY")) {
    d.month = 1;
    return DaysOf(d) * kDay;
  }
  return 0;
}

}  // namespace rota::ctld
