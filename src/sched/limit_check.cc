#include "sched/limit_check.h"

#include <fmt/format.h>

#include <array>

namespace rota::sched {
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

namespace {

// The hits FindLimitHit returns. Without `numbers` a hit carries its reason
// alone: the scheduling pass asks for every pending job of every pass and
// reads nothing else, so neither the holder's name nor the TRES counts are
// looked up for it. `holder` is a callable that names who holds the limit.
struct HitMaker {
  bool numbers;

  // TRES `key` of `limit`: what `held` holds and the job adds.
  template <typename Holder>
  LimitHit Tres(std::string reason, const Holder& holder, std::string_view limit_name,
                const std::string& key, const TresCounts& limit, const TresCounts& held,
                const JobDemand& demand) const {
    if (!numbers) return {std::move(reason)};
    return {std::move(reason),
            holder(),
            std::string(limit_name),
            key,
            static_cast<double>(held.Get(key)),
            static_cast<double>(demand.tres.Get(key)),
            static_cast<double>(limit.Get(key))};
  }

  // GrpTRESRunMins: TRES-minutes left to the running jobs and this job's whole run.
  template <typename Holder>
  LimitHit RunMinutes(std::string reason, const Holder& holder, const std::string& key,
                      const TresCounts& limit, const TresCounts& held_secs,
                      const JobDemand& demand) const {
    if (!numbers) return {std::move(reason)};
    return {
        std::move(reason),
        holder(),
        "GrpTRESRunMins",
        key,
        static_cast<double>(held_secs.Get(key)) / 60.0,
        static_cast<double>(demand.tres.Get(key)) * static_cast<double>(RunSeconds(demand)) / 60.0,
        static_cast<double>(limit.Get(key))};
  }

  // GrpTRESMins: the decayed usage so far (`used_secs`), in TRES-minutes.
  template <typename Holder>
  LimitHit Minutes(std::string reason, const Holder& holder, const std::string& key,
                   const TresCounts& limit, double used_secs, const JobDemand& demand) const {
    if (!numbers) return {std::move(reason)};
    const double asked = demand.time_limit_s < 0
                             ? 0.0
                             : static_cast<double>(demand.tres.Get(key)) *
                                   static_cast<double>(demand.time_limit_s) / 60.0;
    return {std::move(reason),
            holder(),
            "GrpTRESMins",
            key,
            used_secs / 60.0,
            asked,
            static_cast<double>(limit.Get(key))};
  }

  // A job-count limit: `held` jobs run, the job would be one more.
  template <typename Holder>
  LimitHit Jobs(std::string reason, const Holder& holder, std::string_view limit_name,
                uint32_t held, uint32_t max) const {
    if (!numbers) return {std::move(reason)};
    return {std::move(reason),         holder(), std::string(limit_name), "",
            static_cast<double>(held), 1.0,      static_cast<double>(max)};
  }

  // MaxWall, in minutes; a job without a time limit asks for -1.
  template <typename Holder>
  LimitHit Wall(std::string reason, const Holder& holder, int64_t max_wall_s,
                const JobDemand& demand) const {
    if (!numbers) return {std::move(reason)};
    return {std::move(reason),
            holder(),
            "MaxWall",
            "",
            0.0,
            demand.time_limit_s < 0 ? -1.0 : static_cast<double>(demand.time_limit_s) / 60.0,
            static_cast<double>(max_wall_s) / 60.0};
  }
};

// StartLimitHit's walk; StartLimitReason's without `numbers` (HitMaker).
std::optional<LimitHit> FindLimitHit(const LimitUsage& running, const JobDemand& demand,
                                     bool numbers) {
  const HitMaker hits{numbers};
  const PolicyTable& table = running.table();
  if (const QosPolicy* qos = demand.qos.empty() ? nullptr : table.FindQos(demand.qos)) {
    const PolicyLimits& l = qos->limits;
    auto holder = [&] { return "QOS " + qos->name; };
    if (OverWall(l.max_wall_s, demand.time_limit_s)) {
      return hits.Wall("QOSMaxWallDurationPerJobLimit", holder, *l.max_wall_s, demand);
    }
    if (std::string key = OverTres(l.max_tres_per_job, {}, demand.tres); !key.empty()) {
      return hits.Tres(TresReason("QOS", Family::kPerJob, key), holder, "MaxTRESPerJob", key,
                       l.max_tres_per_job, {}, demand);
    }
    const LimitUsage::Tally& all = running.Qos(qos->name);
    const LimitUsage::Tally& mine = running.QosUser(qos->name, demand.user);
    auto user_holder = [&] { return fmt::format("user {} in QOS {}", demand.user, qos->name); };
    if (l.grp_jobs && all.jobs + 1 > *l.grp_jobs) {
      return hits.Jobs("QOSGrpJobsLimit", holder, "GrpJobs", all.jobs, *l.grp_jobs);
    }
    if (l.max_jobs && mine.jobs + 1 > *l.max_jobs) {
      return hits.Jobs("QOSMaxJobsPerUserLimit", user_holder, "MaxJobsPerUser", mine.jobs,
                       *l.max_jobs);
    }
    if (std::string key = OverTres(l.grp_tres, all.tres, demand.tres); !key.empty()) {
      return hits.Tres(TresReason("QOS", Family::kGroup, key), holder, "GrpTRES", key, l.grp_tres,
                       all.tres, demand);
    }
    if (std::string key = OverTres(l.max_tres_per_user, mine.tres, demand.tres); !key.empty()) {
      return hits.Tres(TresReason("QOS", Family::kPerUser, key), user_holder, "MaxTRESPerUser", key,
                       l.max_tres_per_user, mine.tres, demand);
    }
    if (std::string key = OverRunMinutes(l.grp_tres_run_mins, all.run_secs, demand); !key.empty()) {
      return hits.RunMinutes(TresRunMinutesReason("QOS", key), holder, key, l.grp_tres_run_mins,
                             all.run_secs, demand);
    }
    if (const UsageLedger* ledger = running.ledger(); ledger != nullptr) {
      auto used = [&](const std::string& tres) { return ledger->QosTresUsage(qos->name, tres); };
      if (std::string key = OverTresMinutes(l.grp_tres_mins, used, demand, running.safe());
          !key.empty()) {
        return hits.Minutes(TresMinutesReason("QOS", key), holder, key, l.grp_tres_mins, used(key),
                            demand);
      }
    }
  }

  const AssociationPolicy* own = table.FindAssociation(demand.user, demand.account);
  std::vector<const AccountPolicy*> lineage = table.Lineage(demand.account);
  auto assoc_holder = [&] {
    return fmt::format("association of user {} in account {}", demand.user, demand.account);
  };
  if (std::optional<int64_t> wall = Inherited(own, lineage, &PolicyLimits::max_wall_s);
      OverWall(wall, demand.time_limit_s)) {
    return hits.Wall("AssocMaxWallDurationPerJobLimit", assoc_holder, *wall, demand);
  }
  const LimitUsage::Tally& assoc = running.Association(demand.user, demand.account);
  if (std::optional<uint32_t> max = Inherited(own, lineage, &PolicyLimits::max_jobs);
      max && assoc.jobs + 1 > *max) {
    return hits.Jobs("AssocMaxJobsLimit", assoc_holder, "MaxJobs", assoc.jobs, *max);
  }
  const UsageLedger* ledger = running.ledger();
  // GrpTRESMins of the association (`user` set) or of an account.
  auto over_minutes = [&](const PolicyLimits& l, const std::string& account,
                          const std::string& user, const auto& holder) -> std::optional<LimitHit> {
    if (ledger == nullptr || l.grp_tres_mins.empty()) return std::nullopt;
    auto used = [&](const std::string& tres) { return ledger->TresUsage(account, user, tres); };
    std::string key = OverTresMinutes(l.grp_tres_mins, used, demand, running.safe());
    if (key.empty()) return std::nullopt;
    return hits.Minutes(TresMinutesReason("Assoc", key), holder, key, l.grp_tres_mins, used(key),
                        demand);
  };
  // The group limits of the association itself, then of each account up.
  auto over_group = [&](const PolicyLimits& l, const LimitUsage::Tally& held,
                        const auto& holder) -> std::optional<LimitHit> {
    if (l.grp_jobs && held.jobs + 1 > *l.grp_jobs) {
      return hits.Jobs("AssocGrpJobsLimit", holder, "GrpJobs", held.jobs, *l.grp_jobs);
    }
    if (std::string key = OverTres(l.grp_tres, held.tres, demand.tres); !key.empty()) {
      return hits.Tres(TresReason("Assoc", Family::kGroup, key), holder, "GrpTRES", key, l.grp_tres,
                       held.tres, demand);
    }
    if (std::string key = OverRunMinutes(l.grp_tres_run_mins, held.run_secs, demand);
        !key.empty()) {
      return hits.RunMinutes(TresRunMinutesReason("Assoc", key), holder, key, l.grp_tres_run_mins,
                             held.run_secs, demand);
    }
    return std::nullopt;
  };
  if (own != nullptr) {
    if (auto hit = over_group(own->limits, assoc, assoc_holder)) return hit;
    if (auto hit = over_minutes(own->limits, demand.account, demand.user, assoc_holder)) {
      return hit;
    }
  }
  for (const AccountPolicy* a : lineage) {
    auto holder = [&] { return "account " + a->name; };
    if (auto hit = over_group(a->limits, running.Account(a->name), holder)) return hit;
    if (auto hit = over_minutes(a->limits, a->name, "", holder)) return hit;
  }
  return std::nullopt;
}

}  // namespace

model::PendingReason StartLimitReason(const LimitUsage& running, const JobDemand& demand) {
  std::optional<LimitHit> hit = FindLimitHit(running, demand, /*numbers=*/false);
  return hit ? std::move(hit->reason) : model::PendingReason();
}

std::optional<LimitHit> StartLimitHit(const LimitUsage& running, const JobDemand& demand) {
  return FindLimitHit(running, demand, /*numbers=*/true);
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

}  // namespace rota::sched
