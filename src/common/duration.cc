#include "common/duration.h"

#include <optional>
#include <vector>

#include "common/strings.h"

namespace rota {
namespace {

constexpr int64_t kSecsPerMinute = 60;
constexpr int64_t kSecsPerHour = 60 * kSecsPerMinute;
constexpr int64_t kSecsPerDay = 24 * kSecsPerHour;

Status InvalidTime(std::string_view text) {
  std::string message = "invalid time \"";
  message += text;
  message += '"';
  return InvalidArgument(std::move(message));
}

// Adds field * unit to *total; false on overflow. The sum must also stay
// below kInfiniteDuration, which is reserved for INFINITE.
bool AddScaled(uint64_t field, int64_t unit, int64_t* total) {
  const uint64_t room = static_cast<uint64_t>(kInfiniteDuration - 1 - *total);
  if (field > room / static_cast<uint64_t>(unit)) return false;
  *total += static_cast<int64_t>(field) * unit;
  return true;
}

std::string TwoDigits(int64_t value) {
  std::string out = std::to_string(value);
  if (out.size() < 2) out.insert(0, 1, '0');
  return out;
}

}  // namespace

Result<DurationSecs> ParseDuration(std::string_view text) {
  if (EqualsIgnoreCase(text, "INFINITE") || EqualsIgnoreCase(text, "UNLIMITED")) {
    return kInfiniteDuration;
  }
  std::optional<uint64_t> days;
  std::string_view clock = text;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    days = ParseUint(text.substr(0, dash));
    if (!days) return InvalidTime(text);
    clock = text.substr(dash + 1);
  }
  std::vector<uint64_t> fields;
  for (std::string_view piece : Split(clock, ':')) {
    std::optional<uint64_t> value = ParseUint(piece);
    if (!value) return InvalidTime(text);
    fields.push_back(*value);
  }
  if (fields.size() > 3) return InvalidTime(text);

  // The meaning of the fields depends on whether a day count leads: after
  // "D-" the first field is hours; without it a lone field is minutes and
  // two fields are MM:SS.
  const bool starts_with_hours = days.has_value() || fields.size() == 3;
  const std::vector<int64_t> units = starts_with_hours
                                         ? std::vector<int64_t>{kSecsPerHour, kSecsPerMinute, 1}
                                         : std::vector<int64_t>{kSecsPerMinute, 1};
  int64_t total = 0;
  if (days && !AddScaled(*days, kSecsPerDay, &total)) return InvalidTime(text);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!AddScaled(fields[i], units[i], &total)) return InvalidTime(text);
  }
  return total;
}

DurationSecs RoundUpToMinutes(DurationSecs secs) {
  if (secs <= 0 || secs == kInfiniteDuration || secs % kSecsPerMinute == 0) return secs;
  return (secs / kSecsPerMinute + 1) * kSecsPerMinute;
}

Result<DurationSecs> ParseTimeOption(std::string_view text) {
  if (text == "-1") return kInfiniteDuration;
  if (text.size() > 1 && text.back() == '-') {
    std::optional<uint64_t> days = ParseUint(text.substr(0, text.size() - 1));
    int64_t total = 0;
    if (!days || !AddScaled(*days, kSecsPerDay, &total)) return InvalidTime(text);
    return total;
  }
  Result<DurationSecs> secs = ParseDuration(text);
  if (!secs.ok()) return secs;
  return RoundUpToMinutes(*secs);
}

namespace {

// A duration split into the fields Slurm prints.
struct ClockFields {
  int64_t days, hours, minutes, seconds;
};

ClockFields SplitDuration(DurationSecs secs) {
  return {secs / kSecsPerDay, secs % kSecsPerDay / kSecsPerHour,
          secs % kSecsPerHour / kSecsPerMinute, secs % kSecsPerMinute};
}

}  // namespace

std::string FormatDurationSqueue(DurationSecs secs) {
  if (secs == kInfiniteDuration) return "UNLIMITED";
  if (secs < 0) return "INVALID";
  const ClockFields f = SplitDuration(secs);
  const std::string mm_ss = TwoDigits(f.minutes) + ":" + TwoDigits(f.seconds);
  if (f.days > 0) return std::to_string(f.days) + "-" + TwoDigits(f.hours) + ":" + mm_ss;
  if (f.hours > 0) return std::to_string(f.hours) + ":" + mm_ss;
  return std::to_string(f.minutes) + ":" + TwoDigits(f.seconds);
}

std::string FormatDurationScontrol(DurationSecs secs) {
  if (secs == kInfiniteDuration) return "UNLIMITED";
  if (secs < 0) return "INVALID";
  const ClockFields f = SplitDuration(secs);
  std::string clock = TwoDigits(f.hours) + ":" + TwoDigits(f.minutes) + ":" + TwoDigits(f.seconds);
  if (f.days > 0) return std::to_string(f.days) + "-" + clock;
  return clock;
}

}  // namespace rota
