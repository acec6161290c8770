#include "cli/event_time.h"

#include <algorithm>
#include <ctime>
#include <optional>

#include "common/strings.h"

namespace rota::cli {

namespace {

std::tm LocalTime(int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

int64_t MakeLocalTime(std::tm tm) {
  tm.tm_isdst = -1;  // Let mktime decide whether DST applies on that date.
  return static_cast<int64_t>(std::mktime(&tm));
}

// The first moment at or after `now` showing hh:mm:ss on the local clock.
int64_t NextTimeOfDay(int64_t now, int hour, int minute, int second) {
  std::tm tm = LocalTime(now);
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  int64_t when = MakeLocalTime(tm);
  if (when < now) {
    ++tm.tm_mday;  // mktime normalises the month end.
    when = MakeLocalTime(tm);
  }
  return when;
}

int64_t LocalMidnight(int64_t now, int days_ahead) {
  std::tm tm = LocalTime(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_mday += days_ahead;
  return MakeLocalTime(tm);
}

std::optional<int> ParseField(std::string_view text, int low, int high) {
  std::optional<uint64_t> n = ParseUint(text);
  if (!n || *n < static_cast<uint64_t>(low) || *n > static_cast<uint64_t>(high)) {
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

// "HH:MM[:SS]" into hour, minute, second; `twelve_hour` limits HH to 1-12.
bool ParseClock(std::string_view text, bool twelve_hour, int fields[3]) {
  std::vector<std::string_view> parts = Split(text, ':');
  if (parts.size() < 2 || parts.size() > 3) return false;
  std::optional<int> hour = twelve_hour ? ParseField(parts[0], 1, 12) : ParseField(parts[0], 0, 23);
  std::optional<int> minute = ParseField(parts[1], 0, 59);
  std::optional<int> second = parts.size() == 3 ? ParseField(parts[2], 0, 59) : 0;
  if (!hour || !minute || !second) return false;
  fields[0] = *hour;
  fields[1] = *minute;
  fields[2] = *second;
  return true;
}

std::optional<int64_t> ParseUnitSeconds(std::string_view unit) {
  struct Unit {
    std::string_view name;
    int64_t seconds;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},        {"s", 1},        {"sec", 1},       {"secs", 1},
      {"second", 1},  {"seconds", 1},  {"min", 60},      {"mins", 60},
      {"minute", 60}, {"minutes", 60}, {"hour", 3600},   {"hours", 3600},
      {"day", 86400}, {"days", 86400}, {"week", 604800}, {"weeks", 604800},
  };
  for (const Unit& u : kUnits) {
    if (u.name == unit) return u.seconds;
  }
  return std::nullopt;
}

// now[{+|-}N[unit]]
std::optional<int64_t> ParseRelative(std::string_view rest, int64_t now) {
  if (rest.empty()) return now;
  const bool ahead = rest.front() == '+';
  if (!ahead && rest.front() != '-') return std::nullopt;
  rest.remove_prefix(1);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  std::optional<uint64_t> count = ParseUint(rest.substr(0, digits));
  std::optional<int64_t> unit = ParseUnitSeconds(rest.substr(digits));
  if (!count || !unit || *count > static_cast<uint64_t>(INT64_MAX / 2 / *unit)) {
    return std::nullopt;
  }
  const int64_t delta = static_cast<int64_t>(*count) * *unit;
  return ahead ? now + delta : now - delta;
}

// yyyy-mm-dd[thh:mm[:ss]], already lower-cased.
std::optional<int64_t> ParseIsoDate(std::string_view text) {
  size_t t = text.find('t');
  std::vector<std::string_view> date = Split(text.substr(0, t), '-');
  if (date.size() != 3 || date[0].size() != 4) return std::nullopt;
  std::optional<int> year = ParseField(date[0], 1970, 9999);
  std::optional<int> month = ParseField(date[1], 1, 12);
  std::optional<int> day = ParseField(date[2], 1, 31);
  int clock[3] = {0, 0, 0};
  if (!year || !month || !day) return std::nullopt;
  if (t != std::string_view::npos && !ParseClock(text.substr(t + 1), false, clock)) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = clock[0];
  tm.tm_min = clock[1];
  tm.tm_sec = clock[2];
  return MakeLocalTime(tm);
}

// MM/DD[/YY]; without a year, the next such date.
std::optional<int64_t> ParseSlashDate(std::string_view text, int64_t now) {
  std::vector<std::string_view> parts = Split(text, '/');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  std::optional<int> month = ParseField(parts[0], 1, 12);
  std::optional<int> day = ParseField(parts[1], 1, 31);
  if (!month || !day) return std::nullopt;
  std::tm tm = LocalTime(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  if (parts.size() == 3) {
    std::optional<int> year =
        parts[2].size() == 2 ? ParseField(parts[2], 0, 99) : ParseField(parts[2], 1970, 9999);
    if (!year) return std::nullopt;
    tm.tm_year = (parts[2].size() == 2 ? 2000 + *year : *year) - 1900;
    return MakeLocalTime(tm);
  }
  int64_t when = MakeLocalTime(tm);
  if (when < LocalMidnight(now, 0)) {
    ++tm.tm_year;
    when = MakeLocalTime(tm);
  }
  return when;
}

}  // namespace

Result<int64_t> ParseEventTime(std::string_view text, int64_t now) {
  const std::string lower = ToLower(Trim(text));
  std::string_view s = lower;
  std::optional<int64_t> when;
  struct Named {
    std::string_view name;
    int hour;
  };
  static constexpr Named kNamedTimes[] = {
      {"midnight", 0}, {"elevenses", 11}, {"noon", 12}, {"fika", 15}, {"teatime", 16}};
  if (s.starts_with("now")) {
    when = ParseRelative(s.substr(3), now);
  } else if (s == "today") {
    when = LocalMidnight(now, 0);
  } else if (s == "tomorrow") {
    when = LocalMidnight(now, 1);
  } else if (auto named = std::find_if(std::begin(kNamedTimes), std::end(kNamedTimes),
                                       [&](const Named& n) { return n.name == s; });
             named != std::end(kNamedTimes)) {
    when = NextTimeOfDay(now, named->hour, 0, 0);
  } else if (s.find('-') != std::string_view::npos) {
    when = ParseIsoDate(s);
  } else if (s.find('/') != std::string_view::npos) {
    when = ParseSlashDate(s, now);
  } else if (s.find(':') != std::string_view::npos) {
    const bool am = s.ends_with("am"), pm = s.ends_with("pm");
    std::string_view clock_text = Trim(am || pm ? s.substr(0, s.size() - 2) : s);
    int clock[3];
    if (ParseClock(clock_text, am || pm, clock)) {
      if (am || pm) clock[0] = clock[0] % 12 + (pm ? 12 : 0);
      when = NextTimeOfDay(now, clock[0], clock[1], clock[2]);
    }
  }
  if (!when) return InvalidArgument(std::string(text));
  return *when;
}

}  // namespace rota::cli
