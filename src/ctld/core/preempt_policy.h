#pragma once

// Who may displace whom, and how: one policy per PreemptType. The controller
// core asks the policy about each running job when a pending job does not fit
// (preemption.cc); the choice among those allowed is sched::ChoosePreemptees'.
// preempt/partition_prio answers from the partitions' PriorityTier,
// preempt/qos from the QoS records accounting gives (Preempt lists and
// PreemptMode).

#include <memory>
#include <string_view>

#include "conf/cluster_config.h"
#include "conf/preempt_mode.h"
#include "ctld/core/policy_table.h"
#include "rota.pb.h"

namespace rota::ctld {

class PreemptPolicy {
 public:
  virtual ~PreemptPolicy() = default;
  virtual std::string_view Name() const = 0;
  // Cheap first answer: false when `preemptor` can displace no job at all
  // (the core then walks no job).
  virtual bool MayPreemptAny(const wire::JobRecord& preemptor) const = 0;
  // How running `victim` would be displaced for `preemptor`; kOff: it may not.
  // Exempt time and the victim's state are the caller's business.
  virtual conf::PreemptAction ActionFor(const wire::JobRecord& preemptor,
                                        const wire::JobRecord& victim) const = 0;
};

// The policy for the configuration's PreemptType; nullptr when nothing is
// ever preempted (preempt/none, and preempt/qos while the controller has no
// QoS records: accounting not enforced, or rotadbd not heard from yet). The
// policy refers to `config` and `qos`, which must outlive it.
std::unique_ptr<PreemptPolicy> MakePreemptPolicy(const conf::ClusterConfig& config,
                                                 const PolicyTable* qos);

}  // namespace rota::ctld
