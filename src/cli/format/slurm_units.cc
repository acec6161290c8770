#include "cli/format/slurm_units.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace rota::cli::format {

std::string ConvertNumUnit(double value, Unit unit, bool convert) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T", "P"};
  // Slurm prints nothing but the digit for zero, whatever the unit.
  if (value == 0) return "0";
  int u = static_cast<int>(unit);
  // Slurm converts as long as the value reaches the next unit, exact or not.
  while (convert && value >= 1024.0 && u < static_cast<int>(Unit::kPeta)) {
    value /= 1024.0;
    ++u;
  }
  char buf[64];
  const double whole = std::floor(value);
  if (whole == value) {
    std::snprintf(buf, sizeof(buf), "%llu%s", static_cast<unsigned long long>(whole), kSuffix[u]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f%s", value, kSuffix[u]);
  }
  return buf;
}

}  // namespace rota::cli::format
