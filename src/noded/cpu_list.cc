#include "noded/cpu_list.h"

#include <algorithm>

#include "common/strings.h"

namespace rota::noded {

std::optional<std::vector<uint32_t>> ParseCpuList(std::string_view text) {
  std::vector<uint32_t> out;
  text = Trim(text);
  if (text.empty()) return out;
  for (std::string_view item : Split(text, ',')) {
    size_t dash = item.find('-');
    std::optional<uint64_t> first = ParseUint(item.substr(0, dash));
    std::optional<uint64_t> last =
        dash == std::string_view::npos ? first : ParseUint(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last > 1'000'000) return std::nullopt;
    for (uint64_t c = *first; c <= *last; ++c) out.push_back(static_cast<uint32_t>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string FormatCpuList(const std::vector<uint32_t>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace rota::noded
