#include "conf/value_parsers.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::conf {
namespace {

Status Expected(std::string_view what) { return InvalidArgument(std::string(what)); }

std::string ChoicesText(const Choices& choices) {
  std::string out;
  for (std::string_view c : choices) {
    if (!out.empty()) out += ", ";
    out += c;
  }
  return out;
}

}  // namespace

Status ParseUint32Value(std::string_view v, uint32_t& out) {
  std::optional<uint64_t> n = ParseUint(v);
  if (!n || *n > UINT32_MAX) return Expected("is not a non-negative integer");
  out = static_cast<uint32_t>(*n);
  return Status::Ok();
}

Status ParsePortValue(std::string_view v, uint16_t& out) {
  // SlurmctldPort may be a range "6817-6818"; the controller listens on the first.
  std::string_view first = v.substr(0, v.find('-'));
  std::optional<uint64_t> n = ParseUint(first);
  if (!n || *n == 0 || *n > 65535) return Expected("is not a valid port (1-65535)");
  out = static_cast<uint16_t>(*n);
  return Status::Ok();
}

Status ParseSecondsValue(std::string_view v, DurationSecs& out) {
  std::optional<uint64_t> n = ParseUint(v);
  if (!n || *n > static_cast<uint64_t>(INT32_MAX)) return Expected("is not a number of seconds");
  out = static_cast<DurationSecs>(*n);
  return Status::Ok();
}

Status ParseTimeValue(std::string_view v, DurationSecs& out) {
  Result<DurationSecs> d = ParseDuration(v);
  if (!d.ok()) return Expected("is not a valid time limit");
  out = *d;
  return Status::Ok();
}

Status ParseBoolValue(std::string_view v, bool& out) {
  std::optional<bool> b = ParseBool(v);
  if (!b) return Expected("is not YES or NO");
  out = *b;
  return Status::Ok();
}

Status ParseMemoryValue(std::string_view v, MemoryMb& out) {
  Result<MemoryMb> m = ParseMemoryMb(v);
  if (!m.ok()) return Expected("is not a memory size (a number of megabytes, or with K/M/G/T)");
  out = *m;
  return Status::Ok();
}

Status ParseTresWeightsValue(std::string_view v, TresWeights& out) {
  Result<TresWeights> w = ParseTresWeights(v);
  if (!w.ok()) return Expected(fmt::format("is not a TRES weight list ({})", w.status().message()));
  out = *w;
  return Status::Ok();
}

std::vector<std::string> ParseListValue(std::string_view v) {
  std::vector<std::string> out;
  for (std::string_view piece : Split(v, ',')) {
    piece = Trim(piece);
    if (!piece.empty()) out.emplace_back(piece);
  }
  return out;
}

Status ParseChoiceValue(std::string_view v, const Choices& choices, std::string& out) {
  for (std::string_view c : choices) {
    if (EqualsIgnoreCase(v, c)) {
      out = std::string(c);
      return Status::Ok();
    }
  }
  return Expected(fmt::format("is not one of {}", ChoicesText(choices)));
}

Status ParseChoiceListValue(std::string_view v, const Choices& choices,
                            std::vector<std::string>& out) {
  std::vector<std::string> items;
  for (const std::string& item : ParseListValue(v)) {
    std::string chosen;
    if (!ParseChoiceValue(item, choices, chosen).ok()) {
      return Expected(
          fmt::format("names '{}', which is not one of {}", item, ChoicesText(choices)));
    }
    items.push_back(chosen);
  }
  out = std::move(items);
  return Status::Ok();
}

Status ParseIndexListValue(std::string_view v, std::vector<uint32_t>& out) {
  std::vector<uint32_t> ids;
  if (Trim(v).empty()) return Expected("is not a list of indices like 0-3,8");
  for (std::string_view piece : Split(v, ',')) {
    piece = Trim(piece);
    size_t dash = piece.find('-');
    std::optional<uint64_t> lo = ParseUint(piece.substr(0, dash));
    std::optional<uint64_t> hi =
        dash == std::string_view::npos ? lo : ParseUint(piece.substr(dash + 1));
    // A bound keeps typos such as 0-4294967295 from allocating gigabytes.
    constexpr uint64_t kMaxIndex = 1 << 20;
    if (!lo || !hi || *lo > *hi || *hi > kMaxIndex) {
      return Expected("is not a list of indices like 0-3,8");
    }
    for (uint64_t i = *lo; i <= *hi; ++i) ids.push_back(static_cast<uint32_t>(i));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  out = std::move(ids);
  return Status::Ok();
}

}  // namespace rota::conf
