#include "cli/submit/propagated_limits.h"

#include "common/resource_limits.h"

namespace rota::cli {

void AddPropagatedLimits(const conf::SlurmConf& settings,
                         google::protobuf::RepeatedPtrField<wire::ResourceLimit>* out) {
  for (const CapturedLimit& limit : CaptureSoftLimits(PropagatedLimitNames(
           settings.propagate_resource_limits, settings.propagate_resource_limits_except))) {
    wire::ResourceLimit* sent = out->Add();
    sent->set_name(limit.name);
    sent->set_soft(limit.soft);
  }
}

}  // namespace rota::cli
