#include "conf/license_list.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::conf {

Result<LicenseCounts> ParseLicenseList(std::string_view text) {
  LicenseCounts out;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) continue;
    size_t sep = item.find_first_of(":*");
    std::string name(item.substr(0, sep));
    uint32_t count = 1;
    if (sep != std::string_view::npos) {
      std::optional<uint64_t> n = ParseUint(item.substr(sep + 1));
      if (!n || *n > UINT32_MAX) return InvalidArgument("is not a license list");
      count = static_cast<uint32_t>(*n);
    }
    if (name.empty() || !out.emplace(std::move(name), count).second) {
      return InvalidArgument("is not a license list");
    }
  }
  return out;
}

std::string FormatLicenseList(const LicenseCounts& licenses) {
  std::string out;
  for (const auto& [name, count] : licenses) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", name, count);
  }
  return out;
}

}  // namespace rota::conf
