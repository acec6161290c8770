#include "noded/gpu/discovery/mig_minors.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::noded {

std::map<std::string, uint32_t> ParseMigMinors(std::string_view text) {
  std::map<std::string, uint32_t> out;
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line);
    size_t space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    std::optional<uint64_t> minor = ParseUint(Trim(line.substr(space + 1)));
    if (!minor || *minor > UINT32_MAX) continue;
    out[std::string(Trim(line.substr(0, space)))] = static_cast<uint32_t>(*minor);
  }
  return out;
}

std::optional<std::string> MigAccessFile(const std::map<std::string, uint32_t>& minors,
                                         uint32_t gpu_minor, uint32_t gi, uint32_t ci) {
  auto it = minors.find(fmt::format("gpu{}/gi{}/ci{}/access", gpu_minor, gi, ci));
  if (it == minors.end()) return std::nullopt;
  return fmt::format("/dev/nvidia-caps/nvidia-cap{}", it->second);
}

}  // namespace rota::noded
