#pragma once

// QoS and association limits (AccountingStorageEnforce=limits), pure: what a
// job asks for, what jobs already hold or have submitted, and which limit a
// job would break, named with Slurm's pending reason or refusal. No clock, no
// state of its own beyond the tally it is given.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "common/status.h"
#include "common/tres.h"
#include "model/pending_reason.h"
#include "sched/policy_table.h"
#include "sched/usage_ledger.h"

namespace rota::sched {

// Slurm's refusal for a submission over a submit limit (or, with
// Flags=DenyOnLimit, over a per-job limit).
inline constexpr char kPolicyViolation[] =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

// What one job asks for, as the limits count it.
struct JobDemand {
  std::string user;
  std::string account;
  std::string qos;       // Empty: the job has none (no QoS limits apply)
  TresCounts tres;       // cpu, mem (MB), node, gres/...
  int64_t time_limit_s;  // Negative: none (counts as over any MaxWall)
  // A running job: the seconds left of its time limit; negative: all of
  // time_limit_s (a job about to start). GrpTRESRunMins counts TRES times this.
  int64_t remaining_s = -1;
};

// Jobs and TRES counted per QoS, per QoS and user, per account (each job is
// counted in its account and every ancestor), and per association (user and
// account).
class LimitUsage {
 public:
  struct Tally {
    uint32_t jobs = 0;
    TresCounts tres;
    TresCounts run_secs;  // TRES-seconds the jobs have left (GrpTRESRunMins)
  };

  explicit LimitUsage(std::shared_ptr<const PolicyTable> table) : table_(std::move(table)) {}
  // GrpTRESMins reads the decayed usage of `ledger` (not owned; outlives
  // this). `safe` (AccountingStorageEnforce=safe): a job also waits when what
  // it could use over its time limit would go past the limit; otherwise only
  // once the usage has reached it, as Slurm.
  void SetTresMinutes(const UsageLedger* ledger, bool safe) {
    ledger_ = ledger;
    safe_ = safe;
  }
  const UsageLedger* ledger() const { return ledger_; }
  bool safe() const { return safe_; }
  // Counts `jobs` jobs of `demand`'s shape (an array's tasks: several).
  void Add(const JobDemand& demand, uint32_t jobs = 1);

  const Tally& Qos(const std::string& qos) const;
  const Tally& QosUser(const std::string& qos, const std::string& user) const;
  const Tally& Account(const std::string& account) const;
  const Tally& Association(const std::string& user, const std::string& account) const;
  const PolicyTable& table() const { return *table_; }

 private:
  std::shared_ptr<const PolicyTable> table_;
  const UsageLedger* ledger_ = nullptr;
  bool safe_ = false;
  std::map<std::string, Tally> qos_;
  std::map<std::pair<std::string, std::string>, Tally> qos_user_;
  std::map<std::string, Tally> accounts_;
  std::map<std::pair<std::string, std::string>, Tally> associations_;
};

// The limit `demand` would break if it started now, given what running jobs
// hold (`running`): Slurm's pending reason (QOSMaxJobsPerUserLimit,
// AssocGrpCpuLimit, QOSGrpCPUMinutesLimit, AssocGrpGRESMinutes,
// QOSGrpCPURunMinutesLimit, AssocGrpGRESRunMinutes, ...), or none
// when it may start. QoS limits come first, then the user's association
// with the job's account, then its accounts from the nearest up.
model::PendingReason StartLimitReason(const LimitUsage& running, const JobDemand& demand);

// The limit StartLimitReason names, with its numbers: who holds it, which
// limit and TRES, what running jobs use, what the job adds, and the maximum
// (minutes for MaxWall and the *Mins limits; job counts for *Jobs*).
struct LimitHit {
  model::PendingReason reason;
  std::string holder{};  // "QOS normal", "account physics", ...
  std::string limit{};   // sacctmgr's name: "GrpTRES", "MaxJobsPerUser", "MaxWall", ...
  std::string tres{};    // "gres/gpu"; empty for job counts and wall time
  double used = 0;
  double asked = 0;
  double max = 0;
};
std::optional<LimitHit> StartLimitHit(const LimitUsage& running, const JobDemand& demand);

// Whether a submission of `jobs` jobs shaped like `demand` is refused, given
// the jobs already submitted and not finished (`active`): MaxSubmitJobsPerUser,
// GrpSubmitJobs, association MaxSubmitJobs/GrpSubmitJobs, and with the QoS's
// Flags=DenyOnLimit its MaxWall, and the job's own TRES against
// MaxTRESPerJob, MaxTRESPerUser and GrpTRES. PermissionDenied with
// kPolicyViolation when refused.
Status CheckSubmitLimits(const LimitUsage& active, const JobDemand& demand, uint32_t jobs);

// Whether any limit that CheckSubmitLimits checks is set for `demand`: if
// none, the caller need not count the active jobs.
bool HasSubmitLimits(const PolicyTable& table, const JobDemand& demand);

}  // namespace rota::sched
