#include "ctld/core/limit_check.h"

#include <fmt/format.h>

#include <array>

namespace rota::ctld {
namespace {

const LimitUsage::Tally kEmpty;

template <typename Map, typename Key>
const LimitUsage::Tally& Lookup(const Map& map, const Key& key) {
  auto it = map.find(key);
  return it == map.end() ? kEmpty : it->second;
}

void AddTres(TresCounts& into, const TresCounts& add, uint64_t times) {
  for (const auto& [key, value] : add.counts()) into.Set(key, into.Get(key) + value * times);
}

// A job without a time limit holds its TRES for ever: past any
// GrpTRESRunMins (about 136 years, small enough not to overflow a sum).
constexpr uint64_t kUnboundedSecs = UINT32_MAX;

// The seconds GrpTRESRunMins counts for `demand`.
uint64_t RunSeconds(const JobDemand& demand) {
  if (demand.remaining_s >= 0) return static_cast<uint64_t>(demand.remaining_s);
  if (demand.time_limit_s < 0) return kUnboundedSecs;
  return static_cast<uint64_t>(demand.time_limit_s);
}

// GrpTRESRunMins's reason words: QOSGrpCPURunMinutesLimit,
// AssocGrpMemRunMinutes, QOSGrpGRESRunMinutes, ...
std::string TresRunMinutesReason(std::string_view prefix, const std::string& key) {
  const bool qos = prefix == "QOS";
  if (key == "cpu") return fmt::format("{}GrpCPURunMinutesLimit", prefix);
  if (key == "mem") return fmt::format("{}Grp{}RunMinutes", prefix, qos ? "Memory" : "Mem");
  if (key == "node") return fmt::format("{}GrpNodeRunMinutes", prefix);
  if (key.rfind("gres/", 0) == 0) return fmt::format("{}GrpGRESRunMinutes", prefix);
  if (key == "billing") return fmt::format("{}GrpBillingRunMinutes", prefix);
  return "AccountingPolicy";
}

// The first TRES of GrpTRESRunMins `limit` that running jobs (`held`,
// TRES-seconds left) and `demand` over its whole time limit would go past;
// "" when none.
std::string OverRunMinutes(const TresCounts& limit, const TresCounts& held,
                           const JobDemand& demand) {
  const uint64_t secs = RunSeconds(demand);
  for (const auto& [key, max] : limit.counts()) {
    const uint64_t want = demand.tres.Get(key);
    if (want == 0) continue;  // Not asking for it: never held back by it
    const double minutes = (static_cast<double>(held.Get(key)) +
                            static_cast<double>(want) * static_cast<double>(secs)) /
                           60.0;
    if (minutes > static_cast<double>(max)) return key;
  }
  return "";
}

// Slurm's reason words per TRES kind, for each family of limits:
// {per job, per user, group} with the QOS or Assoc prefix added by the caller.
enum class Family { kPerJob, kPerUser, kGroup };

std::string TresReason(std::string_view prefix, Family family, const std::string& key) {
  std::string_view kind;
  if (key == "cpu") {
    kind = "Cpu";
  } else if (key == "mem") {
    kind = "Mem";
  } else if (key == "node") {
    kind = "Node";
  } else if (key.rfind("gres/", 0) == 0) {
    kind = "GRES";
  } else if (key == "billing") {
    kind = "Billing";
  } else {
    return "AccountingPolicy";
  }
  switch (family) {
    case Family::kGroup:
      // QOSGrpCpuLimit, QOSGrpMemLimit, QOSGrpNodeLimit, QOSGrpGRES, QOSGrpBilling.
      if (kind == "GRES" || kind == "Billing") return fmt::format("{}Grp{}", prefix, kind);
      return fmt::format("{}Grp{}Limit", prefix, kind);
    case Family::kPerJob:
    case Family::kPerUser: {
      std::string_view per = family == Family::kPerJob ? "PerJob" : "PerUser";
      // QOSMaxCpuPerJobLimit, QOSMaxNodePerUserLimit, QOSMaxGRESPerJob,
      // QOSMaxMemoryPerUser, QOSMaxBillingPerJob.
      if (kind == "Cpu" || kind == "Node") return fmt::format("{}Max{}{}Limit", prefix, kind, per);
      if (kind == "Mem") return fmt::format("{}MaxMemory{}", prefix, per);
      return fmt::format("{}Max{}{}", prefix, kind, per);
    }
  }
  return "AccountingPolicy";
}

// GrpTRESMins's reason words: QOSGrpCPUMinutesLimit, AssocGrpGRESMinutes, ...
std::string TresMinutesReason(std::string_view prefix, const std::string& key) {
  const bool qos = prefix == "QOS";
  if (key == "cpu") return fmt::format("{}GrpCPUMinutesLimit", prefix);
  if (key == "mem") return fmt::format("{}Grp{}Minutes", prefix, qos ? "Memory" : "Mem");
  if (key == "node") return fmt::format("{}GrpNodeMinutes", prefix);
  if (key.rfind("gres/", 0) == 0) return fmt::format("{}GrpGRESMinutes", prefix);
  if (key == "billing") return fmt::format("{}GrpBillingMinutes", prefix);
  return "AccountingPolicy";
}

// The first TRES of GrpTRESMins `limit` whose decayed usage (`used`: TRES ->
// TRES-seconds) has reached it, or with `safe` would pass it once the job
// has run its whole time limit; "" when none.
template <typename Used>
std::string OverTresMinutes(const TresCounts& limit, const Used& used, const JobDemand& demand,
                            bool safe) {
  for (const auto& [key, max] : limit.counts()) {
    const double used_min = used(key) / 60.0;
    if (used_min >= static_cast<double>(max)) return key;
    if (!safe || demand.tres.Get(key) == 0) continue;
    if (demand.time_limit_s < 0) return key;  // No time limit: unbounded
    const double job_min =
        static_cast<double>(demand.tres.Get(key)) * static_cast<double>(demand.time_limit_s) / 60.0;
    if (used_min + job_min > static_cast<double>(max)) return key;
  }
  return "";
}

// The first TRES of `limit` that `held` plus `demand` goes over; "" when none.
std::string OverTres(const TresCounts& limit, const TresCounts& held, const TresCounts& demand) {
  for (const auto& [key, max] : limit.counts()) {
    if (held.Get(key) + demand.Get(key) > max) return key;
  }
  return "";
}

bool OverWall(std::optional<int64_t> max_wall_s, int64_t time_limit_s) {
  return max_wall_s && (time_limit_s < 0 || time_limit_s > *max_wall_s);
}

// The association's own limit, else the nearest account's that sets it (as
// sacctmgr's limits are inherited down the tree).
template <typename T>
std::optional<T> Inherited(const AssociationPolicy* assoc,
                           const std::vector<const AccountPolicy*>& lineage,
                           std::optional<T> PolicyLimits::*field) {
  if (assoc != nullptr && assoc->limits.*field) return assoc->limits.*field;
  for (const AccountPolicy* a : lineage) {
    if (a->limits.*field) return a->limits.*field;
  }
  return std::nullopt;
}

}  // namespace

void LimitUsage::Add(const JobDemand& demand, uint32_t jobs) {
  const uint64_t run_secs = RunSeconds(demand) * jobs;
  auto count = [&](Tally& t) {
    t.jobs += jobs;
    AddTres(t.tres, demand.tres, jobs);
    AddTres(t.run_secs, demand.tres, run_secs);
  };
  if (!demand.qos.empty()) {
    count(qos_[demand.qos]);
    count(qos_user_[{demand.qos, demand.user}]);
  }
  for (const AccountPolicy* a : table_->Lineage(demand.account)) count(accounts_[a->name]);
  count(associations_[{demand.user, demand.account}]);
}

const LimitUsage::Tally& LimitUsage::Qos(const std::string& qos) const { return Lookup(qos_, qos); }

const LimitUsage::Tally& LimitUsage::QosUser(const std::string& qos,
                                             const std::string& user) const {
  return Lookup(qos_user_, std::make_pair(qos, user));
}

const LimitUsage::Tally& LimitUsage::Account(const std::string& account) const {
  return Lookup(accounts_, account);
}

const LimitUsage::Tally& LimitUsage::Association(const std::string& user,
                                                 const std::string& account) const {
  return Lookup(associations_, std::make_pair(user, account));
}

model::PendingReason StartLimitReason(const LimitUsage& running, const JobDemand& demand) {
  const PolicyTable& table = running.table();
  if (const QosPolicy* qos = demand.qos.empty() ? nullptr : table.FindQos(demand.qos)) {
    const PolicyLimits& l = qos->limits;
    if (OverWall(l.max_wall_s, demand.time_limit_s)) return "QOSMaxWallDurationPerJobLimit";
    if (std::string key = OverTres(l.max_tres_per_job, {}, demand.tres); !key.empty()) {
      return TresReason("QOS", Family::kPerJob, key);
    }
    const LimitUsage::Tally& all = running.Qos(qos->name);
    const LimitUsage::Tally& mine = running.QosUser(qos->name, demand.user);
    if (l.grp_jobs && all.jobs + 1 > *l.grp_jobs) return "QOSGrpJobsLimit";
    if (l.max_jobs && mine.jobs + 1 > *l.max_jobs) return "QOSMaxJobsPerUserLimit";
    if (std::string key = OverTres(l.grp_tres, all.tres, demand.tres); !key.empty()) {
      return TresReason("QOS", Family::kGroup, key);
    }
    if (std::string key = OverTres(l.max_tres_per_user, mine.tres, demand.tres); !key.empty()) {
      return TresReason("QOS", Family::kPerUser, key);
    }
    if (std::string key = OverRunMinutes(l.grp_tres_run_mins, all.run_secs, demand); !key.empty()) {
      return TresRunMinutesReason("QOS", key);
    }
    if (const UsageLedger* ledger = running.ledger(); ledger != nullptr) {
      auto used = [&](const std::string& tres) { return ledger->QosTresUsage(qos->name, tres); };
      if (std::string key = OverTresMinutes(l.grp_tres_mins, used, demand, running.safe());
          !key.empty()) {
        return TresMinutesReason("QOS", key);
      }
    }
  }

  const AssociationPolicy* own = table.FindAssociation(demand.user, demand.account);
  std::vector<const AccountPolicy*> lineage = table.Lineage(demand.account);
  if (OverWall(Inherited(own, lineage, &PolicyLimits::max_wall_s), demand.time_limit_s)) {
    return "AssocMaxWallDurationPerJobLimit";
  }
  const LimitUsage::Tally& assoc = running.Association(demand.user, demand.account);
  if (std::optional<uint32_t> max = Inherited(own, lineage, &PolicyLimits::max_jobs);
      max && assoc.jobs + 1 > *max) {
    return "AssocMaxJobsLimit";
  }
  const UsageLedger* ledger = running.ledger();
  // GrpTRESMins of the association (`user` set) or of an account.
  auto over_minutes = [&](const PolicyLimits& l, const std::string& account,
                          const std::string& user) -> std::string {
    if (ledger == nullptr || l.grp_tres_mins.empty()) return "";
    auto used = [&](const std::string& tres) { return ledger->TresUsage(account, user, tres); };
    std::string key = OverTresMinutes(l.grp_tres_mins, used, demand, running.safe());
    return key.empty() ? "" : TresMinutesReason("Assoc", key);
  };
  if (own != nullptr) {
    if (own->limits.grp_jobs && assoc.jobs + 1 > *own->limits.grp_jobs) {
      return "AssocGrpJobsLimit";
    }
    if (std::string key = OverTres(own->limits.grp_tres, assoc.tres, demand.tres); !key.empty()) {
      return TresReason("Assoc", Family::kGroup, key);
    }
    if (std::string key = OverRunMinutes(own->limits.grp_tres_run_mins, assoc.run_secs, demand);
        !key.empty()) {
      return TresRunMinutesReason("Assoc", key);
    }
    if (std::string r = over_minutes(own->limits, demand.account, demand.user); !r.empty()) {
      return r;
    }
  }
  for (const AccountPolicy* a : lineage) {
    const LimitUsage::Tally& held = running.Account(a->name);
    if (a->limits.grp_jobs && held.jobs + 1 > *a->limits.grp_jobs) return "AssocGrpJobsLimit";
    if (std::string key = OverTres(a->limits.grp_tres, held.tres, demand.tres); !key.empty()) {
      return TresReason("Assoc", Family::kGroup, key);
    }
    if (std::string key = OverRunMinutes(a->limits.grp_tres_run_mins, held.run_secs, demand);
        !key.empty()) {
      return TresRunMinutesReason("Assoc", key);
    }
    if (std::string r = over_minutes(a->limits, a->name, ""); !r.empty()) return r;
  }
  return "";
}

Status CheckSubmitLimits(const LimitUsage& active, const JobDemand& demand, uint32_t jobs) {
  const PolicyTable& table = active.table();
  const Status refused(StatusCode::kPermissionDenied, kPolicyViolation);
  if (const QosPolicy* qos = demand.qos.empty() ? nullptr : table.FindQos(demand.qos)) {
    const PolicyLimits& l = qos->limits;
    if (qos->deny_on_limit) {
      // What the job could never get alone: its own size against the per-job,
      // per-user and group limits, as Slurm treats them with the flag.
      if (OverWall(l.max_wall_s, demand.time_limit_s)) return refused;
      for (const TresCounts* limit : {&l.max_tres_per_job, &l.max_tres_per_user, &l.grp_tres}) {
        if (!OverTres(*limit, {}, demand.tres).empty()) return refused;
      }
    }
    if (l.max_submit && active.QosUser(qos->name, demand.user).jobs + jobs > *l.max_submit) {
      return refused;
    }
    if (l.grp_submit && active.Qos(qos->name).jobs + jobs > *l.grp_submit) return refused;
  }
  const AssociationPolicy* own = table.FindAssociation(demand.user, demand.account);
  std::vector<const AccountPolicy*> lineage = table.Lineage(demand.account);
  const uint32_t mine = active.Association(demand.user, demand.account).jobs;
  if (std::optional<uint32_t> max = Inherited(own, lineage, &PolicyLimits::max_submit);
      max && mine + jobs > *max) {
    return refused;
  }
  if (own != nullptr && own->limits.grp_submit && mine + jobs > *own->limits.grp_submit) {
    return refused;
  }
  for (const AccountPolicy* a : lineage) {
    if (a->limits.grp_submit && active.Account(a->name).jobs + jobs > *a->limits.grp_submit) {
      return refused;
    }
  }
  return Status::Ok();
}

bool HasSubmitLimits(const PolicyTable& table, const JobDemand& demand) {
  if (const QosPolicy* qos = demand.qos.empty() ? nullptr : table.FindQos(demand.qos)) {
    if (qos->limits.max_submit || qos->limits.grp_submit) return true;
  }
  if (const AssociationPolicy* own = table.FindAssociation(demand.user, demand.account)) {
    if (own->limits.max_submit || own->limits.grp_submit) return true;
  }
  for (const AccountPolicy* a : table.Lineage(demand.account)) {
    if (a->limits.max_submit || a->limits.grp_submit) return true;
  }
  return false;
}

}  // namespace rota::ctld
