#include "cli/submit/propagated_limits.h"

#include "common/resource_limits.h"
#include "common/strings.h"

namespace rota::cli {

void AddPropagatedLimits(const conf::SlurmConf& settings,
                         google::protobuf::RepeatedPtrField<wire::ResourceLimit>* out,
                         const std::optional<std::vector<std::string>>& chosen) {
  const std::vector<std::string> names =
      chosen ? PropagatedLimitNames(*chosen, {})
             : PropagatedLimitNames(settings.propagate_resource_limits,
                                    settings.propagate_resource_limits_except);
  for (const CapturedLimit& limit : CaptureSoftLimits(names)) {
    wire::ResourceLimit* sent = out->Add();
    sent->set_name(limit.name);
    sent->set_soft(limit.soft);
  }
}

Result<std::vector<std::string>> ParsePropagateOption(std::string_view value, bool has_value) {
  std::vector<std::string> names;
  if (!has_value) names.push_back("ALL");
  for (std::string_view item : Split(value, ',')) {
    if (item.empty()) continue;
    const bool known = ResourceOfLimit(item).has_value() || EqualsIgnoreCase(item, "ALL") ||
                       EqualsIgnoreCase(item, "NONE");
    if (!known) return InvalidArgument("Invalid --propagate specification");
    names.push_back(ToUpper(item));
  }
  if (names.empty()) return InvalidArgument("Invalid --propagate specification");
  return names;
}

}  // namespace rota::cli
