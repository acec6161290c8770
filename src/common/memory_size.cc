#include "common/memory_size.h"

#include <cstdint>
#include <optional>

#include "common/strings.h"

namespace rota {
namespace {

constexpr MemoryMb kMbPerGb = 1024;
constexpr MemoryMb kMbPerTb = 1024 * kMbPerGb;
constexpr MemoryMb kMbPerPb = 1024 * kMbPerTb;

Status InvalidMemory(std::string_view text, std::string_view why = {}) {
  std::string message = "invalid memory size \"";
  message += text;
  message += '"';
  if (!why.empty()) {
    message += ": ";
    message += why;
  }
  return InvalidArgument(std::move(message));
}

}  // namespace

Result<MemoryMb> ParseMemoryMb(std::string_view text) {
  std::string_view digits = text;
  char unit = 'M';
  if (!text.empty() && !(text.back() >= '0' && text.back() <= '9')) {
    unit = ToUpper(text.substr(text.size() - 1))[0];
    digits = text.substr(0, text.size() - 1);
  }
  std::optional<uint64_t> value = ParseUint(digits);
  if (!value) return InvalidMemory(text, "expected a whole number with an optional K/M/G/T suffix");
  MemoryMb multiplier = 1;
  switch (unit) {
    case 'K':
      // Kilobytes round up: a request must never shrink below what was asked.
      return *value / 1024 + (*value % 1024 != 0 ? 1 : 0);
    case 'M':
      multiplier = 1;
      break;
    case 'G':
      multiplier = kMbPerGb;
      break;
    case 'T':
      multiplier = kMbPerTb;
      break;
    // FormatMemoryMb can print P, so P must read back.
    case 'P':
      multiplier = kMbPerPb;
      break;
    default:
      return InvalidMemory(text, "unknown unit");
  }
  if (*value > UINT64_MAX / multiplier) return InvalidMemory(text, "too large");
  return *value * multiplier;
}

Result<MemoryMb> ParseMemoryOption(std::string_view text) {
  std::string_view core = text;
  if (core.size() >= 3 && (core.back() == 'B' || core.back() == 'b')) {
    const char unit = core[core.size() - 2];
    if (!(unit >= '0' && unit <= '9')) core.remove_suffix(1);  // "16GB", never "16B"
  }
  Result<MemoryMb> mb = ParseMemoryMb(core);
  if (!mb.ok() && core.size() == text.size()) return mb;
  if (!mb.ok())
    return InvalidMemory(text, "expected a whole number with an optional K/M/G/T suffix");
  if (*mb > static_cast<MemoryMb>(INT64_MAX)) return InvalidMemory(text, "too large");
  return mb;
}

std::string FormatMemoryMb(MemoryMb mb) {
  if (mb == 0) return "0";
  if (mb % kMbPerPb == 0) return std::to_string(mb / kMbPerPb) + "P";
  if (mb % kMbPerTb == 0) return std::to_string(mb / kMbPerTb) + "T";
  if (mb % kMbPerGb == 0) return std::to_string(mb / kMbPerGb) + "G";
  return std::to_string(mb) + "M";
}

}  // namespace rota
