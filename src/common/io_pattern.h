#pragma once

// The shape of Slurm's file name patterns (-o/-e/-i): text with
// "%[width]letter" symbols. Each user expands the symbols it knows.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace rota {

// Calls `symbol(letter, width, as_written)` for each "%[width]letter" of
// `pattern` ("%%" is letter '%'; widths stop at 10, as Slurm's) and
// `literal(text)` for the rest, a '%' at the end included.
template <typename Literal, typename Symbol>
void ScanIoPattern(std::string_view pattern, Literal literal, Symbol symbol) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      literal(pattern.substr(i, 1));
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
      width = std::min(width * 10 + (pattern[j] - '0'), 10);
      ++j;
    }
    if (j >= pattern.size()) {
      literal(pattern.substr(i));
      return;
    }
    symbol(pattern[j], width, pattern.substr(i, j - i + 1));
    i = j;
  }
}

// What Slurm prints for %a of a job that is not an array task (NO_VAL - 1).
inline constexpr uint32_t kNotAnArrayTask = 4294967294U;

// `n` zero-padded to `width` digits.
inline std::string PaddedIoNumber(uint64_t n, int width) { return fmt::format("{:0{}}", n, width); }

}  // namespace rota
