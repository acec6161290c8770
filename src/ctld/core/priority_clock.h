#pragma once

// priority/multifactor's bookkeeping inside the controller: when pending
// jobs' priorities were last recomputed (they are, every PriorityCalcPeriod),
// and the cluster totals the factors divide by, cached for one configuration
// and policy. The recomputation itself walks the core's jobs
// (JobPriorities, job_priorities.h); this holds what it keeps between passes.

#include <algorithm>
#include <cstdint>
#include <memory>

#include "conf/cluster_config.h"
#include "ctld/core/multifactor.h"
#include "ctld/core/policy_table.h"

namespace rota::ctld {

class PriorityClock {
 public:
  // Whether a recomputation is due at `now`; when not, `*next` is when it is.
  bool Due(const conf::ClusterConfig& config, int64_t now, int64_t* next) const {
    const int64_t period = Period(config);
    if (last_ != 0 && now < last_ + period) {
      *next = last_ + period;
      return false;
    }
    return true;
  }
  // A recomputation ran at `now`; returns when the next is due.
  int64_t Ran(const conf::ClusterConfig& config, int64_t now) {
    last_ = now;
    return now + Period(config);
  }
  // When pending priorities were last recomputed; 0: never.
  int64_t last() const { return last_; }
  // The wall clock stepped (clock_step.cc).
  void ClockStepped(int64_t step) {
    if (last_ > 0) last_ += step;
  }

  // The totals for `config` and `policy`; cached until the configuration
  // changes or PolicyChanged.
  const sched::PriorityCluster& Totals(const std::shared_ptr<const conf::ClusterConfig>& config,
                                       const PolicyTable* policy) const {
    if (totals_of_ != config) {
      totals_ = MakePriorityCluster(*config);
      if (policy != nullptr) {
        totals_.max_qos_priority = policy->MaxQosPriority();
        totals_.max_assoc_priority = policy->MaxAssocPriority();
      }
      totals_of_ = config;
    }
    return totals_;
  }
  // The highest QoS or association priority may have changed.
  void PolicyChanged() { totals_of_.reset(); }

 private:
  static int64_t Period(const conf::ClusterConfig& config) {
    return std::max<int64_t>(config.settings.priority_calc_period, 1);
  }

  int64_t last_ = 0;
  mutable std::shared_ptr<const conf::ClusterConfig> totals_of_;  // What totals_ was made for
  mutable sched::PriorityCluster totals_;
};

}  // namespace rota::ctld
