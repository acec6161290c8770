#include "ctld/core/preempt_mode.h"

#include "common/strings.h"

namespace rota::ctld {
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

PreemptAction PreemptActionOf(const conf::ClusterConfig& config,
                              const conf::PartitionConfig& partition) {
  if (!partition.preempt_mode.empty()) return ParseModes(partition.preempt_mode);
  return ParseModes(Join(config.settings.preempt_mode, ","));
}

bool MaySuspendJobs(const conf::ClusterConfig& config) {
  if (config.settings.preempt_type != kPreemptPartitionPrio) return false;
  for (const conf::PartitionConfig& p : config.partitions) {
    if (PreemptActionOf(config, p) == PreemptAction::kSuspend) return true;
  }
  return false;
}

}  // namespace rota::ctld
