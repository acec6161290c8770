#include "sched/preempt_policy.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace rota::sched {
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

  bool MayPreemptAny(const PreemptJob& preemptor) const override {
    const conf::PartitionConfig* p = config_.FindPartition(preemptor.partition);
    return p != nullptr && p->priority_tier > lowest_tier_;
  }

  conf::PreemptAction ActionFor(const PreemptJob& preemptor,
                                const PreemptJob& victim) const override {
    const conf::PartitionConfig* mine = config_.FindPartition(preemptor.partition);
    const conf::PartitionConfig* theirs = config_.FindPartition(victim.partition);
    if (mine == nullptr || theirs == nullptr || theirs->priority_tier >= mine->priority_tier) {
      return conf::PreemptAction::kOff;
    }
    return conf::PreemptActionOf(config_, *theirs);
  }

 private:
  const conf::ClusterConfig& config_;
  uint32_t lowest_tier_ = UINT32_MAX;
};

// preempt/qos: a job displaces jobs whose QoS its own QoS lists in Preempt=,
// whatever their partitions, in the way the victim's QoS PreemptMode says
// (else the cluster's). Partitions' PreemptMode does not apply, as in Slurm.
class QosPreemptPolicy final : public PreemptPolicy {
 public:
  QosPreemptPolicy(const conf::ClusterConfig& config, const PolicyTable& table)
      : config_(config), table_(table) {}
  std::string_view Name() const override { return conf::kPreemptQos; }

  bool MayPreemptAny(const PreemptJob& preemptor) const override {
    const QosPolicy* mine = table_.FindQos(preemptor.qos);
    return mine != nullptr && !mine->preempt.empty();
  }

  conf::PreemptAction ActionFor(const PreemptJob& preemptor,
                                const PreemptJob& victim) const override {
    const QosPolicy* mine = table_.FindQos(preemptor.qos);
    const std::string& theirs = victim.qos;
    if (mine == nullptr ||
        std::find(mine->preempt.begin(), mine->preempt.end(), theirs) == mine->preempt.end()) {
      return conf::PreemptAction::kOff;
    }
    const QosPolicy* victim_qos = table_.FindQos(theirs);
    if (victim_qos != nullptr && !victim_qos->preempt_mode.empty()) {
      return conf::ParsePreemptAction(victim_qos->preempt_mode);
    }
    return conf::ClusterPreemptAction(config_);
  }

 private:
  const conf::ClusterConfig& config_;
  const PolicyTable& table_;
};

}  // namespace

std::unique_ptr<PreemptPolicy> MakePreemptPolicy(const conf::ClusterConfig& config,
                                                 const PolicyTable* qos) {
  if (config.settings.preempt_type == conf::kPreemptPartitionPrio) {
    return std::make_unique<PartitionPrioPolicy>(config);
  }
  if (config.settings.preempt_type == conf::kPreemptQos && qos != nullptr) {
    return std::make_unique<QosPreemptPolicy>(config, *qos);
  }
  return nullptr;
}

}  // namespace rota::sched
