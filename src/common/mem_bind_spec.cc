#include "common/mem_bind_spec.h"

#include <optional>

#include "common/cpu_bind_spec.h"
#include "common/strings.h"

namespace rota {

Result<MemBindSpec> ParseMemBindSpec(std::string_view text) {
  const Status invalid = InvalidArgument("Invalid --mem-bind argument: " + std::string(text));
  MemBindSpec spec;
  std::vector<std::string_view> parts = Split(text, ',');
  bool typed = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string_view part = Trim(parts[i]);
    auto is = [&](std::string_view word) { return EqualsIgnoreCase(part, word); };
    if (part.empty() && parts.size() == 1) break;  // Not given
    if (is("quiet") || is("q")) {
      spec.verbose = false;
    } else if (is("verbose") || is("v")) {
      spec.verbose = true;
    } else if (is("prefer")) {
      spec.prefer = true;
    } else if (is("sort") || is("nosort")) {
      continue;
    } else if (typed) {
      return invalid;  // One binding type only.
    } else if (is("none") || is("no")) {
      spec.kind = MemBindSpec::kNone;
      typed = true;
    } else if (is("rank")) {
      spec.kind = MemBindSpec::kRank;
      typed = true;
    } else if (is("local")) {
      spec.kind = MemBindSpec::kLocal;
      typed = true;
    } else if (const size_t colon = part.find(':'); colon != std::string_view::npos) {
      const std::string_view kind = part.substr(0, colon);
      const bool map = EqualsIgnoreCase(kind, "map_mem") || EqualsIgnoreCase(kind, "map_ldom");
      if (!map && !EqualsIgnoreCase(kind, "mask_mem") && !EqualsIgnoreCase(kind, "mask_ldom")) {
        return invalid;
      }
      spec.kind = map ? MemBindSpec::kMapMem : MemBindSpec::kMaskMem;
      typed = true;
      // The list runs on past commas, up to a word that ends it (sort, ...).
      std::vector<std::string_view> entries{part.substr(colon + 1)};
      while (i + 1 < parts.size()) {
        const std::string_view next = Trim(parts[i + 1]);
        if (next.empty() ||
            next.find_first_not_of("0123456789abcdefABCDEFxX*") != std::string_view::npos) {
          break;
        }
        entries.push_back(next);
        ++i;
      }
      std::optional<std::vector<std::vector<uint32_t>>> lists = ParseBindList(entries, map);
      if (!lists) return invalid;
      spec.lists = std::move(*lists);
    } else {
      return invalid;
    }
  }
  return spec;
}

}  // namespace rota
