#pragma once

// Fair-share inside the controller: the usage ledger (sched/usage_ledger.h),
// accrued from the jobs at each PriorityCalcPeriod recomputation, and the
// share tree (sched/fairshare_tree.h) that the fair-share factor and sshare read.
//
// Owns the ledger, whether a cleared ledger still has to be logged, and the
// tree of the last update. Reads, and never changes, what it is handed at
// each call: the configuration, the accounting policy and the jobs. Pure: the
// time is a parameter; its only output besides its own state is the ledger's
// state record.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_table.h"
#include "ctld/core/policy_table.h"
#include "fairshare.pb.h"
#include "rota.pb.h"
#include "sched/fairshare_tree.h"
#include "sched/usage_ledger.h"

namespace rota::ctld {

class FairshareEngine {
 public:
  // What the engine reads of the controller.
  struct Inputs {
    const conf::ClusterConfig& config;
    const PolicyTable* policy;  // Null until rotadbd's is known
    const JobTable& jobs;
  };

  // Accrues usage up to `now` from the jobs that ran since the last update,
  // decays it, and rebuilds the share tree; appends the ledger's record to
  // `effects` unless there is no usage and none was cleared.
  void Update(const Inputs& in, int64_t now, Effects& effects);
  // The association tree with usage that sshare shows: built afresh (the
  // associations and shares as they are now, the usage of the last update);
  // `caller_user` is shown alone unless all users are asked for.
  wire::FairshareResponse Describe(const Inputs& in, const wire::FairshareRequest& request,
                                   const std::string& caller_user) const;
  // The fair-share factor of (account, user) in the tree of the last update;
  // nullopt before the first.
  std::optional<double> Factor(const std::string& account, const std::string& user) const;
  // The account a job's usage and factor go to: its own, else its user's
  // default account, else root.
  static std::string AccountOf(const wire::JobSpec& spec, const PolicyTable* policy);

  // The ledger as logged (a snapshot's or a record's).
  void Restore(const wire::UsageLedgerState& state);
  // PriorityUsageResetPeriod=NOW: all usage goes; the next update logs it.
  void ClearNow();
  // The wall clock stepped (clock_step.cc): the ledger's last update moves with it.
  void ClockStepped(int64_t step) { ledger_.ShiftTime(step); }
  const sched::UsageLedger& ledger() const { return ledger_; }

 private:
  // The policy's accounts and users (or, without one, the jobs' own
  // user/account pairs) with the ledger's usage.
  sched::ShareTree BuildTree(const Inputs& in) const;

  sched::UsageLedger ledger_;
  bool cleared_unsaved_ = false;                  // ClearNow emptied a ledger not yet logged so
  std::shared_ptr<const sched::ShareTree> tree_;  // Null until the first update
};

}  // namespace rota::ctld
