#include "ctld/core/preempt_policy.h"

#include <algorithm>
#include <cstdint>

namespace rota::ctld {
namespace {

// preempt/partition_prio: a job displaces jobs of partitions with a lower
// PriorityTier, in the way the victim's partition's PreemptMode says.
class PartitionPrioPolicy final : public PreemptPolicy {
 public:
  explicit PartitionPrioPolicy(const conf::ClusterConfig& config) : config_(config) {
    for (const conf::PartitionConfig& p : config.partitions) {
      lowest_tier_ = std::min(lowest_tier_, p.priority_tier);
    }
  }
  std::string_view Name() const override { return conf::kPreemptPartitionPrio; }

  bool MayPreemptAny(const wire::JobRecord& preemptor) const override {
    const conf::PartitionConfig* p = config_.FindPartition(preemptor.spec().partition());
    return p != nullptr && p->priority_tier > lowest_tier_;
  }

  conf::PreemptAction ActionFor(const wire::JobRecord& preemptor,
                                const wire::JobRecord& victim) const override {
    const conf::PartitionConfig* mine = config_.FindPartition(preemptor.spec().partition());
    const conf::PartitionConfig* theirs = config_.FindPartition(victim.spec().partition());
    if (mine == nullptr || theirs == nullptr || theirs->priority_tier >= mine->priority_tier) {
      return conf::PreemptAction::kOff;
    }
    return conf::PreemptActionOf(config_, *theirs);
  }

 private:
  const conf::ClusterConfig& config_;
  uint32_t lowest_tier_ = UINT32_MAX;
};

}  // namespace

std::unique_ptr<PreemptPolicy> MakePreemptPolicy(const conf::ClusterConfig& config) {
  if (config.settings.preempt_type == conf::kPreemptPartitionPrio) {
    return std::make_unique<PartitionPrioPolicy>(config);
  }
  return nullptr;
}

}  // namespace rota::ctld
