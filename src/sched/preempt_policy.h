#pragma once

// Who may displace whom, and how: one policy per PreemptType. The controller
// asks the policy about each running job when a pending job does not fit
// (ctld/core/preemption.cc); the choice among those allowed is
// ChoosePreemptees' (preempt_select.h).
// preempt/partition_prio answers from the partitions' PriorityTier,
// preempt/qos from the QoS records accounting gives (Preempt lists and
// PreemptMode).

#include <memory>
#include <string>
#include <string_view>

#include "conf/cluster_config.h"
#include "conf/preempt_mode.h"
#include "sched/policy_table.h"

namespace rota::sched {

// What the policies read of a job: its partition and its QoS (the one it
// names, else "normal").
// A view: the strings must outlive it.
struct PreemptJob {
  const std::string& partition;
  const std::string& qos;
};

class PreemptPolicy {
 public:
  virtual ~PreemptPolicy() = default;
  virtual std::string_view Name() const = 0;
  // Cheap first answer: false when `preemptor` can displace no job at all
  // (the core then walks no job).
  virtual bool MayPreemptAny(const PreemptJob& preemptor) const = 0;
  // How running `victim` would be displaced for `preemptor`; kOff: it may not.
  // Exempt time and the victim's state are the caller's business.
  virtual conf::PreemptAction ActionFor(const PreemptJob& preemptor,
                                        const PreemptJob& victim) const = 0;
};

// The policy for the configuration's PreemptType; nullptr when nothing is
// ever preempted (preempt/none, and preempt/qos while the controller has no
// QoS records: accounting not enforced, or rotadbd not heard from yet). The
// policy refers to `config` and `qos`, which must outlive it.
std::unique_ptr<PreemptPolicy> MakePreemptPolicy(const conf::ClusterConfig& config,
                                                 const PolicyTable* qos);

}  // namespace rota::sched
