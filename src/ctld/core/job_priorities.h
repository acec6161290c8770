#pragma once

// priority/multifactor inside the controller: each job's priority (the
// factors of sched/multifactor.h, read from its record, its QoS and
// association, and its fair-share factor), their recomputation every
// PriorityCalcPeriod, and the breakdowns sprio and sshare show. Under
// priority/basic a job's priority is its submission order.
//
// Owns the recomputation clock (priority_clock.h) and fair-share (the usage
// ledger and share tree, fairshare_engine.h). Reads the configuration and the
// accounting policy in force at each call; changes jobs only by rewriting
// pending jobs' priorities in the table.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "conf/cluster_config.h"
#include "ctld/core/accounting_policy.h"
#include "ctld/core/effects.h"
#include "ctld/core/fairshare_engine.h"
#include "ctld/core/job_table.h"
#include "ctld/core/multifactor.h"
#include "ctld/core/priority_clock.h"
#include "fairshare.pb.h"
#include "priority.pb.h"
#include "rota.pb.h"

namespace rota::ctld {

class JobPriorities {
 public:
  // `config` is the core's pointer, read at each call (a reconfigure swaps it).
  JobPriorities(const std::shared_ptr<const conf::ClusterConfig>& config,
                const AccountingPolicy& accounting, JobTable& jobs)
      : config_(config), accounting_(accounting), jobs_(jobs) {}

  // The priority `job` gets when it is queued, released or requeued.
  uint32_t Base(const wire::JobRecord& job) const;
  // Every PriorityCalcPeriod: running jobs' usage is accrued (one fair-share
  // usage record), then pending jobs' priorities are recomputed in memory only
  // (no record: a restart recomputes them). Returns when the next one is due
  // (nullopt under priority/basic).
  std::optional<int64_t> Recompute(int64_t now, Effects& effects);
  // The breakdown sprio shows.
  wire::PriorityResponse Describe(const wire::PriorityRequest& request, int64_t now) const;
  // The association tree with usage that sshare shows; `caller_user` is shown
  // alone unless all users are asked for.
  wire::FairshareResponse DescribeFairshare(const wire::FairshareRequest& request,
                                            const std::string& caller_user) const {
    return fairshare_.Describe(FairshareInputs(), request, caller_user);
  }

  const sched::UsageLedger& ledger() const { return fairshare_.ledger(); }
  // The ledger as logged (a snapshot's or a record's).
  void RestoreUsage(const wire::UsageLedgerState& state) { fairshare_.Restore(state); }
  // PriorityUsageResetPeriod=NOW: all usage is cleared when the controller
  // reads its configuration (start, reconfigure).
  void ApplyUsageResetNow();
  // The highest QoS or association priority may have changed.
  void PolicyChanged() { clock_.PolicyChanged(); }
  // The wall clock stepped by `step` seconds (clock_step.cc).
  void ClockStepped(int64_t step) {
    clock_.ClockStepped(step);
    fairshare_.ClockStepped(step);
  }

 private:
  FairshareEngine::Inputs FairshareInputs() const { return {*config_, accounting_.table(), jobs_}; }
  // The account a job's usage and factor go to (FairshareEngine::AccountOf).
  std::string FairshareAccount(const wire::JobSpec& spec) const {
    return FairshareEngine::AccountOf(spec, accounting_.table());
  }
  // What the factors read of `job`, its QoS's Priority included.
  sched::PriorityJob Inputs(const wire::JobRecord& job) const;
  // The cluster totals the factors divide by, cached per configuration and policy.
  const sched::PriorityCluster& Totals() const {
    return clock_.Totals(config_, accounting_.table());
  }

  const std::shared_ptr<const conf::ClusterConfig>& config_;
  const AccountingPolicy& accounting_;
  JobTable& jobs_;
  PriorityClock clock_;        // Last recomputation, cluster totals
  FairshareEngine fairshare_;  // Usage ledger and share tree
};

}  // namespace rota::ctld
