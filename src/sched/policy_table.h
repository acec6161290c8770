#pragma once

// An accounting policy as the scheduling policy reads it: accounts with their
// parents, users with their default account and AdminLevel, each user's
// associations (one per account it may run under), QoS, and the limits,
// shares, priorities and preemption settings set on each (what sacctmgr
// keeps). Pure and immutable once built; the controller builds one from
// rotadbd's records (ctld/core/policy_table.h) and swaps in a new one when
// they change.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/tres.h"

namespace rota::sched {

// Limits shared by QoS and associations; unset: no limit.
struct PolicyLimits {
  std::optional<uint32_t> max_jobs;    // QoS MaxJobsPerUser; association MaxJobs
  std::optional<uint32_t> max_submit;  // QoS MaxSubmitJobsPerUser; association MaxSubmitJobs
  std::optional<uint32_t> grp_jobs;
  std::optional<uint32_t> grp_submit;  // GrpSubmitJobs
  std::optional<int64_t> max_wall_s;   // MaxWall
  TresCounts grp_tres;                 // All running jobs together (memory in MB)
  // GrpTRESMins: TRES-minutes of decayed usage (the fair-share ledger's),
  // past and running jobs together; memory in MB-minutes.
  TresCounts grp_tres_mins;
  // GrpTRESRunMins: TRES-minutes that running jobs still have ahead of them
  // (each job's TRES times what is left of its time limit); memory in MB-minutes.
  TresCounts grp_tres_run_mins;
  TresCounts max_tres_per_user;  // QoS only
  TresCounts max_tres_per_job;   // QoS only
};

struct QosPolicy {
  std::string name;
  uint32_t priority = 0;
  double usage_factor = 1.0;
  bool deny_on_limit = false;  // Flags=DenyOnLimit
  PolicyLimits limits;
  // preempt/qos: the QoS whose jobs this QoS's jobs may displace (Preempt=),
  // and how its own jobs are displaced (PreemptMode=; empty: the cluster's).
  std::vector<std::string> preempt;
  std::string preempt_mode;
  int64_t grace_time_s = 0;  // GraceTime=: how long its displaced jobs have to end (preempt/qos)
  // PreemptExemptTime=: how long its jobs run before they may be displaced;
  // unset: the cluster's PreemptExemptTime.
  std::optional<int64_t> preempt_exempt_time_s;
};

struct AccountPolicy {
  std::string name;
  std::string parent;  // Empty for root
  PolicyLimits limits;
  uint32_t shares = 1;         // Fairshare=N
  bool shares_parent = false;  // Fairshare=parent
  std::string qos;             // QOS= as stored (common/qos_list.h); "": inherited
  std::string default_qos;     // DefaultQOS=; "": inherited
  // Priority= (the association factor); unset: inherited from the parent.
  std::optional<uint32_t> priority;
};

enum class AdminLevel { kNone, kOperator, kAdministrator };

struct UserPolicy {
  std::string name;
  std::string default_account;
  AdminLevel admin_level = AdminLevel::kNone;
  std::vector<std::string> accounts;  // Those it has an association with, by name
};

// A user's association with one account: the limits, shares and QoS list
// that apply to the user's jobs under that account.
struct AssociationPolicy {
  std::string account;
  std::string user;
  PolicyLimits limits;
  uint32_t shares = 1;         // Fairshare=N
  bool shares_parent = false;  // Fairshare=parent
  std::string qos;             // QOS= as stored; "": inherited from the account
  std::string default_qos;     // DefaultQOS=; "": inherited
  // Priority=; unset: the nearest account's.
  std::optional<uint32_t> priority;
};

class PolicyTable {
 public:
  // What a table is built from, by name (associations by (account, user)).
  struct Entities {
    std::map<std::string, AccountPolicy> accounts;
    std::map<std::string, UserPolicy> users;
    std::map<std::pair<std::string, std::string>, AssociationPolicy> associations;
    std::map<std::string, QosPolicy> qos;
  };
  // Associations of users it does not list are dropped; each user learns its
  // accounts; the root account is added when missing (rotadbd always has it).
  explicit PolicyTable(Entities entities);
  PolicyTable() : PolicyTable(Entities{}) {}

  const AccountPolicy* FindAccount(const std::string& name) const;
  const UserPolicy* FindUser(const std::string& name) const;
  const QosPolicy* FindQos(const std::string& name) const;
  // `account` and its ancestors, nearest first; empty when unknown. A cycle
  // (which rotadbd refuses) ends the walk.
  std::vector<const AccountPolicy*> Lineage(const std::string& account) const;
  // Whether `user` may run jobs under `account`: it has an association with
  // that account, and the account exists.
  bool HasAssociation(const std::string& user, const std::string& account) const;
  // (account, user)'s association; nullptr when it has none.
  const AssociationPolicy* FindAssociation(const std::string& user,
                                           const std::string& account) const;
  // The QoS the association may use: its own list, else its accounts' from
  // the nearest up (edits applied as common/qos_list.h says). nullopt: no
  // list anywhere, every QoS.
  std::optional<std::vector<std::string>> AllowedQos(const std::string& user,
                                                     const std::string& account) const;
  // The QoS of a job that names none, as Slurm picks it: the association's
  // DefaultQOS (or its nearest account's), else the one QoS of a list of one,
  // else "normal".
  std::string DefaultQos(const std::string& user, const std::string& account) const;
  // Whether any QoS, account or user sets a limit a running job counts
  // against (jobs, TRES, wall time): if none, scheduling need not count.
  bool has_start_limits() const { return has_start_limits_; }
  // The highest QoS Priority (the multifactor QoS factor divides by it).
  uint32_t MaxQosPriority() const;
  // (account, user)'s association Priority: its own, else its nearest
  // account's up to root; 0 when none sets one.
  uint32_t AssocPriority(const std::string& user, const std::string& account) const;
  // The highest association Priority anywhere (the association factor
  // divides by it, as Slurm 22.05 normalises it).
  uint32_t MaxAssocPriority() const { return max_assoc_priority_; }

  const std::map<std::string, AccountPolicy>& accounts() const { return accounts_; }
  const std::map<std::string, UserPolicy>& users() const { return users_; }
  // By (account, user).
  const std::map<std::pair<std::string, std::string>, AssociationPolicy>& associations() const {
    return associations_;
  }
  // Whether any QoS, account or association sets GrpTRESMins.
  bool has_tres_mins_limits() const { return has_tres_mins_limits_; }

 private:
  std::map<std::string, AccountPolicy> accounts_;
  std::map<std::string, UserPolicy> users_;
  std::map<std::pair<std::string, std::string>, AssociationPolicy> associations_;
  std::map<std::string, QosPolicy> qos_;
  bool has_start_limits_ = false;
  bool has_tres_mins_limits_ = false;
  uint32_t max_assoc_priority_ = 0;
};

}  // namespace rota::sched
