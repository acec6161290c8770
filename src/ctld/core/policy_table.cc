#include "ctld/core/policy_table.h"

#include <algorithm>
#include <cstdlib>

#include "common/duration.h"
#include "common/qos_list.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

using Fields = google::protobuf::Map<std::string, std::string>;

// The value of setting `name` (any case), or nullptr when absent or empty.
const std::string* Field(const Fields& fields, std::string_view name) {
  for (const auto& [key, value] : fields) {
    if (EqualsIgnoreCase(key, name)) return value.empty() ? nullptr : &value;
  }
  return nullptr;
}

std::optional<uint32_t> Count(const Fields& fields, std::string_view name) {
  const std::string* v = Field(fields, name);
  if (v == nullptr) return std::nullopt;
  std::optional<uint64_t> n = ParseUint(*v);
  if (!n || *n > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

TresCounts Tres(const Fields& fields, std::string_view name) {
  const std::string* v = Field(fields, name);
  if (v == nullptr) return {};
  Result<TresCounts> t = TresCounts::Parse(*v);
  return t.ok() ? *t : TresCounts{};
}

PolicyLimits Limits(const Fields& f, bool qos) {
  PolicyLimits l;
  l.max_jobs = Count(f, qos ? "MaxJobsPerUser" : "MaxJobs");
  l.max_submit = Count(f, qos ? "MaxSubmitJobsPerUser" : "MaxSubmitJobs");
  l.grp_jobs = Count(f, "GrpJobs");
  l.grp_submit = Count(f, "GrpSubmitJobs");
  if (const std::string* v = Field(f, "MaxWall")) {
    Result<DurationSecs> d = ParseDuration(*v);
    if (d.ok() && *d != kInfiniteDuration) l.max_wall_s = *d;
  }
  l.grp_tres = Tres(f, "GrpTRES");
  l.grp_tres_mins = Tres(f, "GrpTRESMins");
  l.grp_tres_run_mins = Tres(f, "GrpTRESRunMins");
  if (qos) {
    l.max_tres_per_user = Tres(f, "MaxTRESPerUser");
    l.max_tres_per_job = Tres(f, "MaxTRESPerJob");
  }
  return l;
}

// Fairshare=N or Fairshare=parent; absent or unreadable: 1 share.
void Shares(const Fields& f, uint32_t& shares, bool& parent) {
  const std::string* v = Field(f, "Fairshare");
  if (v == nullptr) return;
  if (EqualsIgnoreCase(*v, "parent")) {
    parent = true;
  } else if (std::optional<uint32_t> n = Count(f, "Fairshare")) {
    shares = *n;
  }
}

bool LimitsStart(const PolicyLimits& l) {
  return l.max_jobs || l.grp_jobs || l.max_wall_s || !l.grp_tres.empty() ||
         !l.max_tres_per_user.empty() || !l.max_tres_per_job.empty() || !l.grp_tres_mins.empty() ||
         !l.grp_tres_run_mins.empty();
}

std::string Text(const Fields& f, std::string_view name) {
  const std::string* v = Field(f, name);
  return v == nullptr ? "" : *v;
}

}  // namespace

Enforcement Enforcement::FromSettings(const std::vector<std::string>& accounting_storage_enforce) {
  Enforcement e;
  for (const std::string& item : accounting_storage_enforce) {
    const std::string v = ToLower(item);
    const bool all = v == "all";
    if (all || v == "associations") e.associations = true;
    if (all || v == "limits") e.limits = e.associations = true;
    if (all || v == "qos") e.qos = e.associations = true;
    if (all || v == "safe") e.safe = e.limits = e.associations = true;
  }
  return e;
}

std::shared_ptr<const PolicyTable> PolicyTable::FromState(wire::PolicyState state) {
  auto table = std::make_shared<PolicyTable>();
  for (const wire::PolicyEntity& e : state.entities()) {
    const Fields& f = e.fields();
    if (e.kind() == "account") {
      AccountPolicy& a = table->accounts_[e.name()];
      a.name = e.name();
      if (const std::string* parent = Field(f, "Parent")) a.parent = *parent;
      if (a.parent.empty() && a.name != "root") a.parent = "root";
      a.limits = Limits(f, false);
      Shares(f, a.shares, a.shares_parent);
      a.qos = Text(f, "QOS");
      a.default_qos = Text(f, "DefaultQOS");
      a.priority = Count(f, "Priority");
    } else if (e.kind() == "user") {
      UserPolicy& u = table->users_[e.name()];
      u.name = e.name();
      if (const std::string* account = Field(f, "DefaultAccount")) u.default_account = *account;
      if (const std::string* level = Field(f, "AdminLevel")) {
        if (EqualsIgnoreCase(*level, "Operator")) u.admin_level = AdminLevel::kOperator;
        if (EqualsIgnoreCase(*level, "Administrator")) u.admin_level = AdminLevel::kAdministrator;
      }
      // An older rotadbd kept the association's settings on the user: they
      // stand for its default account's association unless one is stored.
      if (!u.default_account.empty()) {
        AssociationPolicy& a = table->associations_[{u.default_account, u.name}];
        if (a.user.empty()) {
          a.account = u.default_account;
          a.user = u.name;
          a.limits = Limits(f, false);
          Shares(f, a.shares, a.shares_parent);
        }
      }
    } else if (e.kind() == "assoc") {
      const std::string account = Text(f, "Account"), user = Text(f, "User");
      if (account.empty() || user.empty()) continue;
      AssociationPolicy& a = table->associations_[{account, user}];
      a = AssociationPolicy{};
      a.account = account;
      a.user = user;
      a.limits = Limits(f, false);
      Shares(f, a.shares, a.shares_parent);
      a.qos = Text(f, "QOS");
      a.default_qos = Text(f, "DefaultQOS");
      a.priority = Count(f, "Priority");
    } else if (e.kind() == "qos") {
      QosPolicy& q = table->qos_[e.name()];
      q.name = e.name();
      q.priority = Count(f, "Priority").value_or(0);
      if (const std::string* factor = Field(f, "UsageFactor")) {
        q.usage_factor = std::strtod(factor->c_str(), nullptr);
      }
      if (const std::string* flags = Field(f, "Flags")) {
        for (std::string_view flag : Split(*flags, ',')) {
          q.deny_on_limit |= EqualsIgnoreCase(flag, "DenyOnLimit");
        }
      }
      q.limits = Limits(f, true);
      if (const std::string* preempt = Field(f, "Preempt")) {
        for (std::string_view name : Split(*preempt, ',')) {
          if (!Trim(name).empty()) q.preempt.emplace_back(Trim(name));
        }
      }
      if (const std::string* mode = Field(f, "PreemptMode")) q.preempt_mode = *mode;
      if (const std::string* grace = Field(f, "GraceTime")) {
        Result<DurationSecs> d = ParseDuration(*grace);
        if (d.ok() && *d != kInfiniteDuration) q.grace_time_s = *d;
      }
      if (const std::string* exempt = Field(f, "PreemptExemptTime")) {
        Result<DurationSecs> d = ParseDuration(*exempt);
        if (d.ok()) q.preempt_exempt_time_s = *d;
      }
    }
  }
  // Associations of users that are gone (or not yet listed) do not count.
  for (auto it = table->associations_.begin(); it != table->associations_.end();) {
    auto user = table->users_.find(it->first.second);
    if (user == table->users_.end()) {
      it = table->associations_.erase(it);
      continue;
    }
    user->second.accounts.push_back(it->first.first);  // In account order
    ++it;
  }
  auto note = [&](const PolicyLimits& l) {
    table->has_start_limits_ |= LimitsStart(l);
    table->has_tres_mins_limits_ |= !l.grp_tres_mins.empty();
  };
  for (const auto& [name, a] : table->accounts_) {
    note(a.limits);
    table->max_assoc_priority_ = std::max(table->max_assoc_priority_, a.priority.value_or(0));
  }
  for (const auto& [key, a] : table->associations_) {
    note(a.limits);
    table->max_assoc_priority_ = std::max(table->max_assoc_priority_, a.priority.value_or(0));
  }
  for (const auto& [name, q] : table->qos_) note(q.limits);
  // rotadbd always has the root account (the default parent), stored or not.
  if (table->accounts_.count("root") == 0) table->accounts_["root"].name = "root";
  table->state_ = std::move(state);
  return table;
}

const AccountPolicy* PolicyTable::FindAccount(const std::string& name) const {
  auto it = accounts_.find(name);
  return it == accounts_.end() ? nullptr : &it->second;
}

const UserPolicy* PolicyTable::FindUser(const std::string& name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

const QosPolicy* PolicyTable::FindQos(const std::string& name) const {
  auto it = qos_.find(name);
  return it == qos_.end() ? nullptr : &it->second;
}

std::vector<const AccountPolicy*> PolicyTable::Lineage(const std::string& account) const {
  // Called for every pending job in every pass: a short vector, no set (a
  // cycle shows as an account met again).
  std::vector<const AccountPolicy*> out;
  for (const AccountPolicy* a = FindAccount(account);
       a != nullptr && std::find(out.begin(), out.end(), a) == out.end();
       a = a->parent.empty() ? nullptr : FindAccount(a->parent)) {
    out.push_back(a);
  }
  return out;
}

uint32_t PolicyTable::MaxQosPriority() const {
  uint32_t max = 0;
  for (const auto& [name, qos] : qos_) max = std::max(max, qos.priority);
  return max;
}

uint32_t PolicyTable::AssocPriority(const std::string& user, const std::string& account) const {
  const AssociationPolicy* assoc = FindAssociation(user, account);
  if (assoc != nullptr && assoc->priority) return *assoc->priority;
  for (const AccountPolicy* a : Lineage(account)) {
    if (a->priority) return *a->priority;
  }
  return 0;
}

bool PolicyTable::HasAssociation(const std::string& user, const std::string& account) const {
  return !account.empty() && FindAssociation(user, account) != nullptr &&
         FindAccount(account) != nullptr;
}

const AssociationPolicy* PolicyTable::FindAssociation(const std::string& user,
                                                      const std::string& account) const {
  auto it = associations_.find({account, user});
  return it == associations_.end() ? nullptr : &it->second;
}

std::optional<std::vector<std::string>> PolicyTable::AllowedQos(const std::string& user,
                                                                const std::string& account) const {
  std::vector<std::string> chain;
  if (const AssociationPolicy* a = FindAssociation(user, account)) chain.push_back(a->qos);
  for (const AccountPolicy* a : Lineage(account)) chain.push_back(a->qos);
  return ResolveQosList(chain);
}

std::string PolicyTable::DefaultQos(const std::string& user, const std::string& account) const {
  const AssociationPolicy* assoc = FindAssociation(user, account);
  if (assoc != nullptr && !assoc->default_qos.empty()) return assoc->default_qos;
  for (const AccountPolicy* a : Lineage(account)) {
    if (!a->default_qos.empty()) return a->default_qos;
  }
  std::optional<std::vector<std::string>> allowed = AllowedQos(user, account);
  if (allowed && allowed->size() == 1) return allowed->front();
  return "normal";
}

const std::string& JobQos(const wire::JobSpec& spec) {
  static const std::string kNormal = "normal";
  return spec.qos().empty() ? kNormal : spec.qos();
}

}  // namespace rota::ctld
