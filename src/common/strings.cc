#include "common/strings.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace rota {
namespace {

// ASCII only on purpose: <cctype> follows the C locale, and Slurm's files are
// ASCII whatever the locale of the process reading them.
char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

std::string_view Trim(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size() && IsSpace(s[begin])) ++begin;
  size_t end = s.size();
  while (end > begin && IsSpace(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::vector<std::string> SplitCommaList(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view piece : Split(s, ',')) {
    if (!piece.empty()) out.emplace_back(piece);
  }
  return out;
}

std::vector<std::string_view> SplitOutsideBrackets(std::string_view s, char sep) {
  return SplitOutside(s, sep, '[', ']');
}

std::vector<std::string_view> SplitOutside(std::string_view s, char sep, char open, char close) {
  std::vector<std::string_view> parts;
  ForEachOutside(s, sep, open, close, [&](std::string_view part) { parts.push_back(part); });
  return parts;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::optional<uint64_t> ParseUint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude = ParseUint(s);
  if (!magnitude) return std::nullopt;
  // The negative range is one larger than the positive one.
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (*magnitude > kMaxPositive + 1) return std::nullopt;
    if (*magnitude == kMaxPositive + 1) return std::numeric_limits<int64_t>::min();
    return -static_cast<int64_t>(*magnitude);
  }
  if (*magnitude > kMaxPositive) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

std::optional<double> ParseDouble(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  // from_chars also reads "inf" and "nan"; no Slurm setting means either.
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<bool> ParseBool(std::string_view s) {
  for (std::string_view yes : {"yes", "true", "1", "on"}) {
    if (EqualsIgnoreCase(s, yes)) return true;
  }
  for (std::string_view no : {"no", "false", "0", "off"}) {
    if (EqualsIgnoreCase(s, no)) return false;
  }
  return std::nullopt;
}

int NaturalCompare(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t a_end = i;
      while (a_end < a.size() && IsDigit(a[a_end])) ++a_end;
      size_t b_end = j;
      while (b_end < b.size() && IsDigit(b[b_end])) ++b_end;
      // Compare values without converting, so runs of any length work:
      // after dropping leading zeros, the longer run is the larger number,
      // and runs of equal length compare digit by digit.
      size_t a_sig = i;
      while (a_sig + 1 < a_end && a[a_sig] == '0') ++a_sig;
      size_t b_sig = j;
      while (b_sig + 1 < b_end && b[b_sig] == '0') ++b_sig;
      size_t a_len = a_end - a_sig;
      size_t b_len = b_end - b_sig;
      if (a_len != b_len) return a_len < b_len ? -1 : 1;
      int digits = a.substr(a_sig, a_len).compare(b.substr(b_sig, b_len));
      if (digits != 0) return digits < 0 ? -1 : 1;
      // Equal values: the shorter spelling ("8" before "08") goes first so
      // that only identical strings compare equal.
      size_t a_run = a_end - i;
      size_t b_run = b_end - j;
      if (a_run != b_run) return a_run < b_run ? -1 : 1;
      i = a_end;
      j = b_end;
      continue;
    }
    unsigned char ca = static_cast<unsigned char>(a[i]);
    unsigned char cb = static_cast<unsigned char>(b[j]);
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

}  // namespace rota
