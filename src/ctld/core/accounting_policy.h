#pragma once

// The accounting policy in the controller: the table of associations, QoS
// and users rotadbd gives (kept in the state log, so a restarted controller
// enforces it while rotadbd is down), what AccountingStorageEnforce asks to
// enforce, and the checks built on them: at submission (association, QoS,
// the partition's Allow*/Deny* lists, submit limits), while scheduling (the
// limits a job waits for) and for permissions (AdminLevel, PrivateData=jobs).
// It owns the table and the enforcement; it reads the configuration and the
// job table. Owned by ControllerCore (state loop thread).

#include <cstdint>
#include <memory>
#include <optional>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "ctld/core/caller.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_table.h"
#include "ctld/core/policy_table.h"
#include "model/pending_reason.h"
#include "rota.pb.h"
#include "sched/usage_ledger.h"

namespace rota::sched {
class LimitUsage;  // limit_check.h
struct LimitHit;
}  // namespace rota::sched

namespace rota::ctld {

class AccountingPolicy {
 public:
  // REQUIRES: `jobs` outlives it.
  AccountingPolicy(std::shared_ptr<const conf::ClusterConfig> config, const JobTable& jobs);
  // A new configuration: AccountingStorageEnforce read again.
  void Reconfigure(std::shared_ptr<const conf::ClusterConfig> config);

  // The table from the snapshot or the log (recovery): nothing to record.
  void Restore(const wire::PolicyState& state);
  // Adopts the table rotadbd holds now; a record keeps it durable when it
  // differs from the one held. Returns whether it changed.
  bool Set(wire::PolicyState state, Effects& effects);
  // The table in force; null until one is known.
  const PolicyTable* table() const { return table_.get(); }
  const std::shared_ptr<const PolicyTable>& shared_table() const { return table_; }

  // `caller`, privileged too when accounting gives its user AdminLevel
  // Operator or Administrator (scancel, scontrol update/hold/release).
  Caller WithAdminLevel(const Caller& caller) const;
  // slurm.conf PrivateData=jobs: the uid whose jobs and steps alone `caller`
  // may list; none when it may list everyone's (root, SlurmUser, AdminLevel
  // Operator or Administrator, or jobs not private).
  std::optional<uint32_t> JobsVisibleOnlyTo(const Caller& caller) const;

  // At submission: the association (filling the account from the user's
  // default, the QoS from the association's), the QoS and the partition's
  // Allow*/Deny* lists. Errors carry Slurm's messages.
  Status CheckAtSubmit(wire::JobSpec& spec, const conf::PartitionConfig& partition,
                       const Caller& caller) const;
  // Without an enforced policy, a named QoS must be "normal" or one a
  // partition names.
  Status CheckQosKnown(const wire::JobSpec& spec) const;
  // Submit limits and DenyOnLimit for the job about to be queued (`jobs`: an
  // array's task count).
  Status CheckLimitsAtSubmit(const wire::JobRecord& job, uint32_t jobs) const;

  // Scheduling: the running jobs' usage at the start of a pass (null when no
  // limits are enforced; GrpTRESMins reads `ledger`, which must outlive the
  // result), the limit that holds `job` pending (none when none), the same
  // with its numbers (rota why), and a job started in the pass counted.
  std::unique_ptr<sched::LimitUsage> RunningUsage(const sched::UsageLedger& ledger,
                                                  int64_t now) const;
  model::PendingReason LimitReason(const sched::LimitUsage* usage,
                                   const wire::JobRecord& job) const;
  std::optional<sched::LimitHit> LimitHitOf(const sched::LimitUsage& usage,
                                            const wire::JobRecord& job) const;
  void CountStarted(sched::LimitUsage* usage, const wire::JobRecord& job) const;

 private:
  std::shared_ptr<const conf::ClusterConfig> config_;
  const JobTable& jobs_;
  std::shared_ptr<const PolicyTable> table_;  // Null until rotadbd's is known
  Enforcement enforcement_;                   // From AccountingStorageEnforce
};

}  // namespace rota::ctld
