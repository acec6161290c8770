#include "cli/format/slurm_units.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace rota::cli::format {

namespace {

// Whole numbers plainly, fractions with two decimals, then the unit's letter.
std::string WithSuffix(double value, int u) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T", "P"};
  char buf[64];
  const double whole = std::floor(value);
  if (whole == value) {
    std::snprintf(buf, sizeof(buf), "%llu%s", static_cast<unsigned long long>(whole), kSuffix[u]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f%s", value, kSuffix[u]);
  }
  return buf;
}

}  // namespace

std::string ConvertNumUnit(double value, Unit unit, bool convert) {
  // Slurm prints nothing but the digit for zero, whatever the unit.
  if (value == 0) return "0";
  int u = static_cast<int>(unit);
  // Slurm converts as long as the value reaches the next unit, exact or not.
  while (convert && value >= 1024.0 && u < static_cast<int>(Unit::kPeta)) {
    value /= 1024.0;
    ++u;
  }
  return WithSuffix(value, u);
}

std::string ConvertNumUnitTo(double value, Unit unit, Unit target) {
  if (value == 0) return "0";
  int u = static_cast<int>(unit);
  for (; u < static_cast<int>(target); ++u) value /= 1024.0;
  for (; u > static_cast<int>(target); --u) value *= 1024.0;
  return WithSuffix(value, u);
}

std::optional<Unit> UnitFromLetter(std::string_view text) {
  static constexpr std::string_view kLetters = "KMGTP";
  if (text.empty()) return std::nullopt;
  const size_t at =
      kLetters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(text[0]))));
  if (at == std::string_view::npos) return std::nullopt;
  return static_cast<Unit>(at + 1);
}

}  // namespace rota::cli::format
