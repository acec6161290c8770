#include "common/cpu_bind_spec.h"

#include <algorithm>
#include <optional>

#include "common/strings.h"

namespace rota {
namespace {

Status Invalid(std::string_view text) {
  return InvalidArgument("Invalid --cpu-bind argument: " + std::string(text));
}

// "12", "0xc".
std::optional<uint32_t> CpuId(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t v = 0;
    for (char c : s.substr(2)) {
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (digit < 0 || v > (UINT32_MAX >> 4)) return std::nullopt;
      v = v * 16 + static_cast<uint64_t>(digit);
    }
    return static_cast<uint32_t>(v);
  }
  std::optional<uint64_t> v = ParseUint(s);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

// A hex mask ("0x3", "f0") as its CPU ids; nullopt when malformed or empty.
std::optional<std::vector<uint32_t>> MaskCpus(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 1024) return std::nullopt;
  std::vector<uint32_t> cpus;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[s.size() - 1 - i];  // Least significant digit first
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return std::nullopt;
    for (int bit = 0; bit < 4; ++bit) {
      if ((digit >> bit) & 1) cpus.push_back(static_cast<uint32_t>(i * 4 + bit));
    }
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

}  // namespace

std::optional<std::vector<std::vector<uint32_t>>> ParseBindList(
    const std::vector<std::string_view>& entries, bool map) {
  std::vector<std::vector<uint32_t>> lists;
  for (std::string_view entry : entries) {
    uint32_t repeat = 1;
    if (size_t star = entry.find('*'); star != std::string_view::npos) {
      std::optional<uint64_t> n = ParseUint(entry.substr(star + 1));
      if (!n || *n == 0 || *n > 4096) return std::nullopt;
      repeat = static_cast<uint32_t>(*n);
      entry = entry.substr(0, star);
    }
    std::vector<uint32_t> ids;
    if (map) {
      std::optional<uint32_t> id = CpuId(entry);
      if (!id) return std::nullopt;
      ids = {*id};
    } else {
      std::optional<std::vector<uint32_t>> mask = MaskCpus(entry);
      if (!mask) return std::nullopt;
      ids = std::move(*mask);
    }
    for (uint32_t r = 0; r < repeat; ++r) lists.push_back(ids);
  }
  return lists;
}

Result<CpuBindSpec> ParseCpuBindSpec(std::string_view text) {
  CpuBindSpec spec;
  std::vector<std::string_view> parts = Split(text, ',');
  bool typed = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = Trim(parts[i]);
    if (part.empty() && parts.size() == 1) break;  // Not given
    if (part == "quiet" || part == "q") {
      spec.verbose = false;
    } else if (part == "verbose" || part == "v") {
      spec.verbose = true;
    } else if (typed) {
      return Invalid(text);  // One binding type only.
    } else if (part == "none" || part == "no") {
      spec.kind = CpuBindSpec::kNone;
      typed = true;
    } else if (part == "cores") {
      spec.kind = CpuBindSpec::kCores;
      typed = true;
    } else if (part == "threads") {
      spec.kind = CpuBindSpec::kThreads;
      typed = true;
    } else if (part == "sockets" || part == "ldoms") {
      spec.kind = CpuBindSpec::kSockets;
      typed = true;
    } else if (part == "rank") {
      spec.kind = CpuBindSpec::kRank;
      typed = true;
    } else if (part.rfind("map_cpu:", 0) == 0 || part.rfind("mask_cpu:", 0) == 0) {
      const bool map = part[1] == 'a' && part[2] == 'p';
      spec.kind = map ? CpuBindSpec::kMapCpu : CpuBindSpec::kMaskCpu;
      typed = true;
      // The list runs to the end: its entries are comma-separated too.
      std::vector<std::string_view> entries{part.substr(part.find(':') + 1)};
      for (++i; i < parts.size(); ++i) entries.push_back(Trim(parts[i]));
      std::optional<std::vector<std::vector<uint32_t>>> lists = ParseBindList(entries, map);
      if (!lists) return Invalid(text);
      spec.lists = std::move(*lists);
    } else {
      return Invalid(text);
    }
  }
  return spec;
}

std::string CpuMaskHex(const std::vector<uint32_t>& cpus) {
  if (cpus.empty()) return "0x0";
  const uint32_t top = *std::max_element(cpus.begin(), cpus.end());
  std::string digits(top / 4 + 1, '0');
  for (uint32_t cpu : cpus) {
    char& d = digits[digits.size() - 1 - cpu / 4];
    int value = d <= '9' ? d - '0' : d - 'a' + 10;
    value |= 1 << (cpu % 4);
    d = static_cast<char>(value < 10 ? '0' + value : 'a' + value - 10);
  }
  return "0x" + digits;
}

}  // namespace rota
