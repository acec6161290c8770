#include "conf/preempt_mode.h"

#include "common/strings.h"

namespace rota::conf {
namespace {

PreemptAction ParseModes(std::string_view modes) {
  for (std::string_view mode : Split(modes, ',')) {
    mode = Trim(mode);
    if (EqualsIgnoreCase(mode, "OFF")) return PreemptAction::kOff;
    if (EqualsIgnoreCase(mode, "CANCEL")) return PreemptAction::kCancel;
    if (EqualsIgnoreCase(mode, "REQUEUE")) return PreemptAction::kRequeue;
    if (EqualsIgnoreCase(mode, "SUSPEND")) return PreemptAction::kSuspend;
  }
  return PreemptAction::kOff;
}

}  // namespace

PreemptAction PreemptActionOf(const ClusterConfig& config, const PartitionConfig& partition) {
  if (!partition.preempt_mode.empty()) return ParseModes(partition.preempt_mode);
  return ParseModes(Join(config.settings.preempt_mode, ","));
}

bool MaySuspendJobs(const ClusterConfig& config) {
  if (config.settings.preempt_type != kPreemptPartitionPrio) return false;
  for (const PartitionConfig& p : config.partitions) {
    if (PreemptActionOf(config, p) == PreemptAction::kSuspend) return true;
  }
  return false;
}

}  // namespace rota::conf
