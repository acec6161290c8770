#include "rest/slurmdb_entities.h"

#include <algorithm>
#include <map>
#include <optional>

#include "cli/accounting/sacct_json.h"
#include "common/duration.h"
#include "common/qos_list.h"
#include "common/strings.h"

namespace rota::rest {
namespace {

// Slurm's SLURMDB_FS_USE_PARENT: what shares_raw holds for Fairshare=parent.
constexpr int64_t kSharesUseParent = 0x7fffffff;

std::string FieldOf(const wire::AcctEntity& e, const std::string& key) {
  auto it = e.fields().find(key);
  return it == e.fields().end() ? "" : it->second;
}

// A string, or null when empty (slurmrestd writes an unset string as null).
Json TextOrNull(const std::string& text) { return text.empty() ? Json() : Json(text); }

// A stored count ("10"), or null when unset.
Json Count(const wire::AcctEntity& e, const std::string& key) {
  std::optional<uint64_t> n = ParseUint(FieldOf(e, key));
  return n ? Json(*n) : Json();
}

// A stored duration ("1-00:00:00") in `unit` seconds, or null when unset or
// unlimited.
Json Duration(const wire::AcctEntity& e, const std::string& key, int64_t unit) {
  const std::string text = FieldOf(e, key);
  if (text.empty()) return Json();
  Result<DurationSecs> d = ParseDuration(text);
  if (!d.ok() || *d == kInfiniteDuration) return Json();
  return Json(*d / unit);
}

Json Tres(const wire::AcctEntity& e, const std::string& key) {
  return cli::TresListJson(FieldOf(e, key));
}

Json Number(const wire::AcctEntity& e, const std::string& key, double fallback) {
  std::optional<double> d = ParseDouble(FieldOf(e, key));
  return d ? Json(*d) : Json(fallback);
}

Json ShortAssociation(const std::string& account, const std::string& cluster,
                      const std::string& user) {
  return {{"account", account},
          {"cluster", cluster},
          {"partition", nullptr},
          {"user", TextOrNull(user)}};
}

// The association tree: accounts by name and the chain up to root.
class Tree {
 public:
  explicit Tree(const AccountingEntities& data) {
    for (const wire::AcctEntity& a : data.accounts) accounts_[a.name()] = &a;
    for (const wire::AcctEntity& u : data.users) {
      default_account_[u.name()] = FieldOf(u, "DefaultAccount");
    }
  }

  const wire::AcctEntity* Account(const std::string& name) const {
    auto it = accounts_.find(name);
    return it == accounts_.end() ? nullptr : it->second;
  }

  std::string Parent(const std::string& account) const {
    const wire::AcctEntity* a = Account(account);
    if (a == nullptr || account == "root") return "";
    const std::string parent = FieldOf(*a, "Parent");
    return parent.empty() ? "root" : parent;
  }

  // `own` first, then each account from `account` up to root (skipping
  // `own` when it is that account).
  std::vector<const wire::AcctEntity*> Chain(const wire::AcctEntity& own,
                                             const std::string& account) const {
    std::vector<const wire::AcctEntity*> chain = {&own};
    std::string at = account;
    for (int depth = 0; !at.empty() && depth < 64; ++depth) {
      const wire::AcctEntity* a = Account(at);
      if (a == nullptr) break;
      if (a != &own) chain.push_back(a);
      at = Parent(at);
    }
    return chain;
  }

  bool IsDefault(const std::string& user, const std::string& account) const {
    auto it = default_account_.find(user);
    return it != default_account_.end() && it->second == account;
  }

 private:
  std::map<std::string, const wire::AcctEntity*> accounts_;
  std::map<std::string, std::string> default_account_;
};

Json Association(const Tree& tree, const std::string& cluster, const wire::AcctEntity& own,
                 const std::string& account, const std::string& user) {
  const std::vector<const wire::AcctEntity*> chain = tree.Chain(own, account);
  std::vector<std::string> qos_chain;
  std::string default_qos;
  for (const wire::AcctEntity* e : chain) {
    qos_chain.push_back(FieldOf(*e, "QOS"));
    if (default_qos.empty()) default_qos = FieldOf(*e, "DefaultQOS");
  }
  Json qos = Json::array();
  if (std::optional<std::vector<std::string>> list = ResolveQosList(qos_chain)) {
    for (const std::string& name : *list) qos.push_back(name);
  }
  const bool is_default = !user.empty() && tree.IsDefault(user, account);
  const std::string fairshare = FieldOf(own, "Fairshare");
  Json shares = 1;
  if (EqualsIgnoreCase(fairshare, "parent")) {
    shares = kSharesUseParent;
  } else if (std::optional<uint64_t> n = ParseUint(fairshare)) {
    shares = *n;
  }

  Json a;
  a["account"] = account;
  a["cluster"] = cluster;
  a["default"] = {{"qos", TextOrNull(default_qos)}};
  a["flags"] = is_default ? Json::array({"DEFAULT"}) : Json::array();
  a["max"] = {
      {"jobs",
       {{"per",
         {{"count", Count(own, "GrpJobs")},
          {"accruing", nullptr},
          {"submitted", Count(own, "GrpSubmitJobs")},
          {"wall_clock", Duration(own, "MaxWall", 60)}}},
        {"active", Count(own, "MaxJobs")},
        {"accruing", nullptr},
        {"total", Count(own, "MaxSubmitJobs")}}},
      {"tres",
       {{"total", Tres(own, "GrpTRES")},
        {"group", {{"minutes", Tres(own, "GrpTRESMins")}, {"active", Tres(own, "GrpTRESRunMins")}}},
        {"minutes", {{"per", {{"job", Json::array()}}}, {"total", Json::array()}}},
        {"per", {{"job", Json::array()}, {"node", Json::array()}}}}},
      {"per", {{"account", {{"wall_clock", nullptr}}}}}};
  a["is_default"] = is_default ? 1 : 0;
  a["min"] = {{"priority_threshold", nullptr}};
  a["parent_account"] = TextOrNull(user.empty() ? tree.Parent(account) : "");
  a["partition"] = nullptr;
  a["priority"] = Count(own, "Priority");
  a["qos"] = std::move(qos);
  a["shares_raw"] = std::move(shares);
  a["user"] = TextOrNull(user);
  return a;
}

bool Wanted(const std::string& filter, const std::string& value) {
  return filter.empty() || filter == value;
}

// The user associations under each account, by user name.
std::map<std::string, std::vector<const wire::AcctEntity*>> UsersByAccount(
    const AccountingEntities& data) {
  std::map<std::string, std::vector<const wire::AcctEntity*>> out;
  for (const wire::AcctEntity& a : data.assocs) out[FieldOf(a, "Account")].push_back(&a);
  for (auto& [account, users] : out) {
    std::sort(users.begin(), users.end(), [](const auto* x, const auto* y) {
      return FieldOf(*x, "User") < FieldOf(*y, "User");
    });
  }
  return out;
}

// sacctmgr's QOS flag names to dbv0.0.38's.
std::string QosFlagName(std::string_view flag) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"DenyOnLimit", "DENY_LIMIT"},
      {"EnforceUsageThreshold", "ENFORCE_USAGE_THRESHOLD"},
      {"NoDecay", "NO_DECAY"},
      {"NoReserve", "NO_RESERVE"},
      {"OverPartQOS", "OVERRIDE_PARTITION_QOS"},
      {"PartitionMaxNodes", "PARTITION_MAXIMUM_NODE"},
      {"PartitionMinNodes", "PARTITION_MINIMUM_NODE"},
      {"PartitionTimeLimit", "PARTITION_TIME_LIMIT"},
      {"RequiresReservation", "REQUIRED_RESERVATION"},
      {"UsageFactorSafe", "USAGE_FACTOR_SAFE"},
  };
  for (const auto& [sacctmgr, rest] : kNames) {
    if (EqualsIgnoreCase(flag, sacctmgr) || EqualsIgnoreCase(flag, rest)) return std::string(rest);
  }
  return ToUpper(flag);
}

Json NameList(const std::string& text) {
  Json list = Json::array();
  for (std::string& name : SplitCommaList(text)) list.push_back(std::move(name));
  return list;
}

Json OneQos(const wire::AcctEntity& q) {
  Json flags = Json::array();
  for (const std::string& flag : SplitCommaList(FieldOf(q, "Flags"))) {
    flags.push_back(QosFlagName(flag));
  }
  // PreemptMode OFF is the empty list; WITHIN has no dbv0.0.38 name.
  Json modes = Json::array();
  for (const std::string& mode : SplitCommaList(FieldOf(q, "PreemptMode"))) {
    const std::string upper = ToUpper(mode);
    if (upper == "SUSPEND" || upper == "REQUEUE" || upper == "CANCEL" || upper == "GANG") {
      modes.push_back(upper);
    }
  }
  const Json none = Json::array();
  Json limits;
  limits["grace_time"] = Duration(q, "GraceTime", 1);
  limits["max"] = {
      {"active_jobs", {{"accruing", nullptr}, {"count", Count(q, "GrpJobs")}}},
      {"tres",
       {{"total", Tres(q, "GrpTRES")},
        {"minutes",
         {{"per",
           {{"qos", Tres(q, "GrpTRESRunMins")},
            {"job", none},
            {"account", none},
            {"user", none}}}}},
        {"per",
         {{"account", none},
          {"job", Tres(q, "MaxTRESPerJob")},
          {"node", none},
          {"user", Tres(q, "MaxTRESPerUser")}}}}},
      {"wall_clock", {{"per", {{"qos", nullptr}, {"job", Duration(q, "MaxWall", 60)}}}}},
      {"jobs",
       {{"active_jobs", {{"per", {{"account", nullptr}, {"user", Count(q, "MaxJobsPerUser")}}}}},
        {"per", {{"account", nullptr}, {"user", Count(q, "MaxSubmitJobsPerUser")}}}}},
      {"accruing", {{"per", {{"account", nullptr}, {"user", nullptr}}}}}};
  limits["factor"] = nullptr;
  limits["min"] = {{"priority_threshold", nullptr}, {"tres", {{"per", {{"job", none}}}}}};

  Json out;
  out["description"] = FieldOf(q, "Description");
  out["flags"] = std::move(flags);
  out["limits"] = std::move(limits);
  out["name"] = q.name();
  out["preempt"] = {{"list", NameList(FieldOf(q, "Preempt"))},
                    {"mode", std::move(modes)},
                    {"exempt_time", Duration(q, "PreemptExemptTime", 1)}};
  std::optional<uint64_t> priority = ParseUint(FieldOf(q, "Priority"));
  out["priority"] = priority ? *priority : 0;
  out["usage_factor"] = Number(q, "UsageFactor", 1.0);
  out["usage_threshold"] = nullptr;
  return out;
}

}  // namespace

Json AssociationsJson(const AccountingEntities& data, const AssociationFilter& filter) {
  Json list = Json::array();
  // One tree, ClusterName's; no association names a partition.
  if (!Wanted(filter.cluster, data.cluster) || !filter.partition.empty()) return list;
  const Tree tree(data);
  const auto users_of = UsersByAccount(data);
  std::vector<const wire::AcctEntity*> accounts;
  for (const wire::AcctEntity& a : data.accounts) accounts.push_back(&a);
  std::sort(accounts.begin(), accounts.end(),
            [](const auto* x, const auto* y) { return x->name() < y->name(); });
  for (const wire::AcctEntity* account : accounts) {
    if (!Wanted(filter.account, account->name())) continue;
    // A user filter lists only user associations.
    if (filter.user.empty()) {
      list.push_back(Association(tree, data.cluster, *account, account->name(), ""));
    }
    auto it = users_of.find(account->name());
    if (it == users_of.end()) continue;
    for (const wire::AcctEntity* assoc : it->second) {
      const std::string user = FieldOf(*assoc, "User");
      if (!Wanted(filter.user, user)) continue;
      list.push_back(Association(tree, data.cluster, *assoc, account->name(), user));
    }
  }
  return list;
}

Json AccountsJson(const AccountingEntities& data) {
  const auto users_of = UsersByAccount(data);
  Json list = Json::array();
  for (const wire::AcctEntity& a : data.accounts) {
    Json assocs = Json::array({ShortAssociation(a.name(), data.cluster, "")});
    if (auto it = users_of.find(a.name()); it != users_of.end()) {
      for (const wire::AcctEntity* u : it->second) {
        assocs.push_back(ShortAssociation(a.name(), data.cluster, FieldOf(*u, "User")));
      }
    }
    Json out;
    out["associations"] = std::move(assocs);
    out["coordinators"] = Json::array();
    out["description"] = FieldOf(a, "Description");
    out["name"] = a.name();
    out["organization"] = FieldOf(a, "Organization");
    out["flags"] = Json::array();
    list.push_back(std::move(out));
  }
  return list;
}

Json UsersJson(const AccountingEntities& data) {
  std::map<std::string, std::vector<std::string>> accounts_of;
  for (const wire::AcctEntity& a : data.assocs) {
    accounts_of[FieldOf(a, "User")].push_back(FieldOf(a, "Account"));
  }
  Json list = Json::array();
  for (const wire::AcctEntity& u : data.users) {
    std::vector<std::string> accounts = accounts_of[u.name()];
    std::sort(accounts.begin(), accounts.end());
    Json assocs = Json::array();
    for (const std::string& account : accounts) {
      assocs.push_back(ShortAssociation(account, data.cluster, u.name()));
    }
    const std::string level = FieldOf(u, "AdminLevel");
    Json out;
    out["administrator_level"] = level.empty() ? std::string("None") : level;
    out["associations"] = std::move(assocs);
    out["coordinators"] = Json::array();
    out["default"] = {{"account", TextOrNull(FieldOf(u, "DefaultAccount"))}, {"wckey", nullptr}};
    out["flags"] = Json::array();
    out["name"] = u.name();
    list.push_back(std::move(out));
  }
  return list;
}

Json QosJson(const std::vector<wire::AcctEntity>& qos) {
  Json list = Json::array();
  for (const wire::AcctEntity& q : qos) list.push_back(OneQos(q));
  return list;
}

}  // namespace rota::rest
