#pragma once

// Small string utilities shared by the parsers. Slurm's keys and many of its
// values are case-insensitive ASCII; nothing here is locale-dependent.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rota {

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);
std::string_view Trim(std::string_view s);

// Splits on every `sep`; keeps empty pieces ("a,,b" -> {"a", "", "b"}).
std::vector<std::string_view> Split(std::string_view s, char sep);
// A comma list as commands take it: "a,,b," -> {"a", "b"} (empty pieces dropped).
std::vector<std::string> SplitCommaList(std::string_view s);
// Splits on `sep` except inside [...] brackets ("a[1,2],b" -> {"a[1,2]", "b"}).
std::vector<std::string_view> SplitOutsideBrackets(std::string_view s, char sep);
// Splits on `sep` except between `open` and `close` (nested pairs counted):
// SplitOutside("gpu:2(S:0,1),nic:1", ',', '(', ')') -> {"gpu:2(S:0,1)", "nic:1"}.
std::vector<std::string_view> SplitOutside(std::string_view s, char sep, char open, char close);
// The same pieces, each given to `fn`, with nothing allocated (hot paths).
template <typename Fn>
void ForEachOutside(std::string_view s, char sep, char open, char close, Fn&& fn) {
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s[i] == sep && depth == 0)) {
      fn(s.substr(start, i - start));
      start = i + 1;
    } else if (s[i] == open) {
      ++depth;
    } else if (s[i] == close && depth > 0) {
      // A stray closer must not make the depth negative, or every later
      // separator would be swallowed; the caller's own parser reports it.
      --depth;
    }
  }
}
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// Whole-string unsigned decimal; nullopt for empty input, signs, junk or overflow.
std::optional<uint64_t> ParseUint(std::string_view s);
// Whole-string signed decimal.
std::optional<int64_t> ParseInt(std::string_view s);
// Whole-string floating point ("0.1", "32", "1e3"); nullopt on junk.
std::optional<double> ParseDouble(std::string_view s);
// YES/NO, TRUE/FALSE, 1/0, ON/OFF, case-insensitive.
std::optional<bool> ParseBool(std::string_view s);

// Natural order: digit runs compare by numeric value ("n2" < "n10").
// Returns <0, 0, >0 like strcmp.
int NaturalCompare(std::string_view a, std::string_view b);

}  // namespace rota
