#pragma once

// Names of the files in a state directory:
//   log.<first seq>        a log segment, holding records from <first seq> on
//   snapshot.<seq>         a snapshot of the state after record <seq>
//   snapshot.<seq>.tmp     a snapshot being written (left behind by a crash)

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rota::ctld {

inline constexpr std::string_view kSegmentPrefix = "log.";
inline constexpr std::string_view kSnapshotPrefix = "snapshot.";
inline constexpr std::string_view kTempSuffix = ".tmp";

inline std::string SegmentFileName(uint64_t first_seq) {
  return std::string(kSegmentPrefix) + std::to_string(first_seq);
}

inline std::string SnapshotFileName(uint64_t seq) {
  return std::string(kSnapshotPrefix) + std::to_string(seq);
}

inline std::string JoinPath(const std::string& dir, std::string_view name) {
  return dir + "/" + std::string(name);
}

// The number in `name` when it is exactly `prefix` followed by decimal digits.
inline std::optional<uint64_t> ParseSeqName(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace rota::ctld
