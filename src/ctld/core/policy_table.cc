#include "ctld/core/policy_table.h"

#include <algorithm>
#include <cstdlib>

#include "common/duration.h"
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
  Entities table;
  for (const wire::PolicyEntity& e : state.entities()) {
    const Fields& f = e.fields();
    if (e.kind() == "account") {
      AccountPolicy& a = table.accounts[e.name()];
      a.name = e.name();
      if (const std::string* parent = Field(f, "Parent")) a.parent = *parent;
      if (a.parent.empty() && a.name != "root") a.parent = "root";
      a.limits = Limits(f, false);
      Shares(f, a.shares, a.shares_parent);
      a.qos = Text(f, "QOS");
      a.default_qos = Text(f, "DefaultQOS");
      a.priority = Count(f, "Priority");
    } else if (e.kind() == "user") {
      UserPolicy& u = table.users[e.name()];
      u.name = e.name();
      if (const std::string* account = Field(f, "DefaultAccount")) u.default_account = *account;
      if (const std::string* level = Field(f, "AdminLevel")) {
        if (EqualsIgnoreCase(*level, "Operator")) u.admin_level = AdminLevel::kOperator;
        if (EqualsIgnoreCase(*level, "Administrator")) u.admin_level = AdminLevel::kAdministrator;
      }
      // An older rotadbd kept the association's settings on the user: they
      // stand for its default account's association unless one is stored.
      if (!u.default_account.empty()) {
        AssociationPolicy& a = table.associations[{u.default_account, u.name}];
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
      AssociationPolicy& a = table.associations[{account, user}];
      a = AssociationPolicy{};
      a.account = account;
      a.user = user;
      a.limits = Limits(f, false);
      Shares(f, a.shares, a.shares_parent);
      a.qos = Text(f, "QOS");
      a.default_qos = Text(f, "DefaultQOS");
      a.priority = Count(f, "Priority");
    } else if (e.kind() == "qos") {
      QosPolicy& q = table.qos[e.name()];
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
  return std::shared_ptr<const PolicyTable>(new PolicyTable(std::move(table), std::move(state)));
}

const std::string& JobQos(const wire::JobSpec& spec) {
  static const std::string kNormal = "normal";
  return spec.qos().empty() ? kNormal : spec.qos();
}

}  // namespace rota::ctld
