#include "noded/stepd/task_limits.h"

#include "common/resource_limits.h"

namespace rota::noded {

std::vector<SoftLimit> SoftLimitsFrom(
    const google::protobuf::RepeatedPtrField<wire::ResourceLimit>& sent) {
  std::vector<SoftLimit> out;
  for (const wire::ResourceLimit& limit : sent) {
    if (std::optional<int> resource = ResourceOfLimit(limit.name())) {
      out.push_back({*resource, limit.soft()});
    }
  }
  return out;
}

}  // namespace rota::noded
