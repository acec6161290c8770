#include "conf/preempt_mode.h"

#include <algorithm>
#include <optional>

#include "common/strings.h"

namespace rota::conf {
PreemptAction ParsePreemptAction(std::string_view modes) {
  for (std::string_view mode : Split(modes, ',')) {
    mode = Trim(mode);
    if (EqualsIgnoreCase(mode, "OFF")) return PreemptAction::kOff;
    if (EqualsIgnoreCase(mode, "CANCEL")) return PreemptAction::kCancel;
    if (EqualsIgnoreCase(mode, "REQUEUE")) return PreemptAction::kRequeue;
    if (EqualsIgnoreCase(mode, "SUSPEND")) return PreemptAction::kSuspend;
  }
  return PreemptAction::kOff;
}

PreemptAction PreemptActionOf(const ClusterConfig& config, const PartitionConfig& partition) {
  if (!partition.preempt_mode.empty()) return ParsePreemptAction(partition.preempt_mode);
  return ClusterPreemptAction(config);
}

PreemptAction ClusterPreemptAction(const ClusterConfig& config) {
  return ParsePreemptAction(Join(config.settings.preempt_mode, ","));
}

bool MaySuspendJobs(const ClusterConfig& config) {
  // Under preempt/qos only the cluster's mode is known here (the QoS ones
  // live in accounting).
  if (config.settings.preempt_type == kPreemptQos) {
    return ClusterPreemptAction(config) == PreemptAction::kSuspend;
  }
  if (config.settings.preempt_type != kPreemptPartitionPrio) return false;
  for (const PartitionConfig& p : config.partitions) {
    if (PreemptActionOf(config, p) == PreemptAction::kSuspend) return true;
  }
  return false;
}

uint32_t ForceShareCount(std::string_view oversubscribe) {
  std::string_view base = oversubscribe.substr(0, oversubscribe.find(':'));
  if (!EqualsIgnoreCase(base, "FORCE")) return 0;
  if (base.size() == oversubscribe.size()) return 4;
  std::optional<uint64_t> n = ParseUint(oversubscribe.substr(base.size() + 1));
  return n ? static_cast<uint32_t>(std::min<uint64_t>(*n, UINT32_MAX)) : 0;
}

bool GangEnabled(const ClusterConfig& config) {
  for (const std::string& mode : config.settings.preempt_mode) {
    if (EqualsIgnoreCase(Trim(mode), "GANG")) return true;
  }
  return false;
}

bool TimeSlicesJobs(const ClusterConfig& config) {
  if (!GangEnabled(config)) return false;
  for (const PartitionConfig& p : config.partitions) {
    if (ForceShareCount(p.oversubscribe) > 1) return true;
  }
  return false;
}

}  // namespace rota::conf
