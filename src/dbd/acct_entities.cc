#include "dbd/acct_entities.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "common/duration.h"
#include "common/qos_list.h"
#include "common/strings.h"
#include "common/tres.h"

namespace rota::dbd {
namespace {

enum class Value {
  kText,
  kCount,
  kDuration,
  kTres,
  kAdminLevel,
  kFactor,
  kNameList,
  kPreemptMode,
  kShares,
  kQosList
};

struct Setting {
  std::string_view name;
  Value value;
};

// Association limits, on accounts (inherited by their users) and on each
// user's association with an account.
constexpr std::array kAccountSettings = {
    Setting{"Description", Value::kText},    Setting{"Organization", Value::kText},
    Setting{"Parent", Value::kText},         Setting{"MaxJobs", Value::kCount},
    Setting{"MaxSubmitJobs", Value::kCount}, Setting{"GrpJobs", Value::kCount},
    Setting{"GrpSubmitJobs", Value::kCount}, Setting{"GrpTRES", Value::kTres},
    Setting{"GrpTRESMins", Value::kTres},    Setting{"MaxWall", Value::kDuration},
    Setting{"GrpTRESRunMins", Value::kTres}, Setting{"Fairshare", Value::kShares},
    Setting{"QOS", Value::kQosList},         Setting{"DefaultQOS", Value::kText},
    Setting{"Priority", Value::kCount}};
// What belongs to the user itself; the rest is its associations'.
constexpr std::array kUserSettings = {Setting{"DefaultAccount", Value::kText},
                                      Setting{"AdminLevel", Value::kAdminLevel}};
constexpr std::array kAssocSettings = {
    Setting{"MaxJobs", Value::kCount},       Setting{"MaxSubmitJobs", Value::kCount},
    Setting{"GrpJobs", Value::kCount},       Setting{"GrpSubmitJobs", Value::kCount},
    Setting{"GrpTRES", Value::kTres},        Setting{"GrpTRESMins", Value::kTres},
    Setting{"GrpTRESRunMins", Value::kTres}, Setting{"MaxWall", Value::kDuration},
    Setting{"Fairshare", Value::kShares},    Setting{"QOS", Value::kQosList},
    Setting{"DefaultQOS", Value::kText},     Setting{"Priority", Value::kCount}};
constexpr std::array kQosSettings = {
    Setting{"Description", Value::kText},           Setting{"Priority", Value::kCount},
    Setting{"MaxWall", Value::kDuration},           Setting{"MaxJobsPerUser", Value::kCount},
    Setting{"MaxSubmitJobsPerUser", Value::kCount}, Setting{"GrpJobs", Value::kCount},
    Setting{"GrpSubmitJobs", Value::kCount},        Setting{"GrpTRES", Value::kTres},
    Setting{"GrpTRESMins", Value::kTres},           Setting{"GrpTRESRunMins", Value::kTres},
    Setting{"MaxTRESPerUser", Value::kTres},        Setting{"MaxTRESPerJob", Value::kTres},
    Setting{"UsageFactor", Value::kFactor},         Setting{"Flags", Value::kText},
    Setting{"Preempt", Value::kNameList},           Setting{"PreemptMode", Value::kPreemptMode},
    Setting{"GraceTime", Value::kDuration},         Setting{"PreemptExemptTime", Value::kDuration}};

template <size_t N>
const Setting* Find(const std::array<Setting, N>& table, const std::string& key) {
  for (const Setting& s : table) {
    if (ToLower(s.name) == ToLower(key)) return &s;
  }
  return nullptr;
}

const Setting* FindSetting(const std::string& kind, const std::string& key) {
  if (kind == "account") return Find(kAccountSettings, key);
  if (kind == "user") return Find(kUserSettings, key);
  if (kind == "assoc") return Find(kAssocSettings, key);
  return Find(kQosSettings, key);
}

// A plain list of names ("a,b") with `names` added ('+') or removed ('-'),
// sorted and unique as sacctmgr lists them.
std::string EditNameList(const std::string& own, char op, const std::string& names) {
  std::vector<std::string> list = SplitCommaList(own);
  for (std::string& name : SplitCommaList(names)) {
    auto it = std::find(list.begin(), list.end(), name);
    if (op == '+' && it == list.end()) list.push_back(std::move(name));
    if (op == '-' && it != list.end()) list.erase(it);
  }
  std::sort(list.begin(), list.end());
  return Join(list, ",");
}

// sacctmgr's "QOS+=high" arrives as key "QOS+": the key and the operator.
std::pair<std::string, char> SplitOperator(const std::string& key) {
  if (!key.empty() && (key.back() == '+' || key.back() == '-')) {
    return {key.substr(0, key.size() - 1), key.back()};
  }
  return {key, '='};
}

Status CheckValue(const Setting& s, std::string& value) {
  switch (s.value) {
    case Value::kText:
      return Status::Ok();
    case Value::kCount:
      if (!ParseUint(value)) return InvalidArgument(fmt::format("Bad {} value: {}", s.name, value));
      return Status::Ok();
    case Value::kDuration: {
      Result<DurationSecs> d = ParseDuration(value);
      if (!d.ok()) return InvalidArgument(fmt::format("Bad {} value: {}", s.name, value));
      return Status::Ok();
    }
    case Value::kTres: {
      Result<TresCounts> t = TresCounts::Parse(value);
      if (!t.ok()) return InvalidArgument(fmt::format("Bad {} value: {}", s.name, value));
      value = t->ToString();
      return Status::Ok();
    }
    case Value::kAdminLevel:
      for (const char* level : {"None", "Operator", "Administrator"}) {
        if (ToLower(value) == ToLower(level)) {
          value = level;
          return Status::Ok();
        }
      }
      return InvalidArgument(fmt::format("Bad AdminLevel value: {}", value));
    case Value::kNameList: {
      // "a, b,,c" -> "a,b,c"; the names are checked against the store later.
      std::string canonical;
      for (std::string_view name : Split(value, ',')) {
        if (Trim(name).empty()) continue;
        if (!canonical.empty()) canonical += ',';
        canonical.append(Trim(name));
      }
      value = canonical;
      return Status::Ok();
    }
    case Value::kQosList:
      value = EditQosList("", '=', value);
      return Status::Ok();
    case Value::kPreemptMode: {
      std::string canonical;
      for (std::string_view mode : Split(value, ',')) {
        std::string upper = ToUpper(Trim(mode));
        if (upper != "OFF" && upper != "CANCEL" && upper != "REQUEUE" && upper != "SUSPEND" &&
            upper != "GANG" && upper != "WITHIN") {
          return InvalidArgument(fmt::format("Bad PreemptMode value: {}", value));
        }
        if (!canonical.empty()) canonical += ',';
        canonical += upper;
      }
      value = canonical;
      return Status::Ok();
    }
    case Value::kShares:
      // Fairshare=N (N >= 0) or Fairshare=parent.
      if (EqualsIgnoreCase(value, "parent")) {
        value = "parent";
        return Status::Ok();
      }
      if (std::optional<uint64_t> n = ParseUint(value); !n || *n > UINT32_MAX) {
        return InvalidArgument(fmt::format("Bad {} value: {}", s.name, value));
      }
      return Status::Ok();
    case Value::kFactor: {
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') {
        return InvalidArgument(fmt::format("Bad {} value: {}", s.name, value));
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

bool Exists(AccountingStore& store, const std::string& kind, const std::string& name) {
  if (kind == "account" && name == "root") return true;  // The tree's implicit top
  auto found = store.ListEntities(kind, {name});
  return found.ok() && !found->empty();
}

// A QoS's Preempt list names other QoS that exist (stored, or added in the
// same batch).
Status CheckPreemptList(const std::string& qos,
                        const google::protobuf::Map<std::string, std::string>& fields,
                        const std::vector<wire::AcctEntity>& batch, AccountingStore& store) {
  auto it = fields.find("Preempt");
  if (it == fields.end()) return Status::Ok();
  for (std::string_view name : Split(it->second, ',')) {
    if (name == qos) return InvalidArgument(fmt::format("QOS {} cannot preempt itself", qos));
    bool in_batch = std::any_of(batch.begin(), batch.end(),
                                [&](const wire::AcctEntity& o) { return o.name() == name; });
    if (!in_batch && !Exists(store, "qos", std::string(name))) {
      return Status(StatusCode::kNotFound, fmt::format("Preempt: the QOS {} doesn't exist", name));
    }
  }
  return Status::Ok();
}

}  // namespace

Status PrepareAdd(std::vector<wire::AcctEntity>& entities, AccountingStore& store) {
  for (wire::AcctEntity& e : entities) {
    const std::string& kind = e.kind();
    if (kind != "account" && kind != "user" && kind != "qos" && kind != "assoc") {
      return InvalidArgument(fmt::format("Unknown entity: {}", kind));
    }
    if (e.name().empty()) return InvalidArgument("No name given");
    std::map<std::string, std::string> canonical;
    for (const auto& [key, raw] : e.fields()) {
      if (kind == "assoc" && (key == "Account" || key == "User")) {
        canonical[key] = raw;  // What the association is of, not a setting
        continue;
      }
      const Setting* s = FindSetting(kind, key);
      if (s == nullptr) return InvalidArgument(fmt::format("Unknown option: {}={}", key, raw));
      std::string value = raw;
      ROTA_RETURN_IF_ERROR(CheckValue(*s, value));
      canonical[std::string(s->name)] = value;
    }
    if (kind == "account") {
      canonical.try_emplace("Parent", "root");
      canonical.try_emplace("Description", e.name());
      canonical.try_emplace("Organization",
                            canonical["Parent"] == "root" ? e.name() : canonical["Parent"]);
      const std::string& parent = canonical["Parent"];
      bool in_batch = std::any_of(entities.begin(), entities.end(),
                                  [&](const wire::AcctEntity& o) { return o.name() == parent; });
      if (!in_batch && !Exists(store, "account", parent)) {
        return Status(StatusCode::kNotFound,
                      fmt::format("Parent account {} doesn't exist", parent));
      }
    } else if (kind == "user") {
      auto def = canonical.find("DefaultAccount");
      if (def == canonical.end()) {
        return InvalidArgument("Need a default account for these users");
      }
      if (!Exists(store, "account", def->second)) {
        return Status(StatusCode::kNotFound,
                      fmt::format("The account {} doesn't exist", def->second));
      }
      canonical.try_emplace("AdminLevel", "None");
    } else if (kind == "assoc") {
      if (!Exists(store, "account", canonical["Account"])) {
        return Status(StatusCode::kNotFound,
                      fmt::format("The account {} doesn't exist", canonical["Account"]));
      }
    } else {
      canonical.try_emplace("Priority", "0");
      canonical.try_emplace("UsageFactor", "1.000000");
    }
    e.clear_fields();
    for (auto& [key, value] : canonical) (*e.mutable_fields())[key] = value;
    if (kind == "qos")
      ROTA_RETURN_IF_ERROR(CheckPreemptList(e.name(), e.fields(), entities, store));
    if (kind == "account" || kind == "assoc")
      ROTA_RETURN_IF_ERROR(CheckQosNames(e.fields(), store));
  }
  return Status::Ok();
}

Status ApplySettings(const std::string& kind, const std::map<std::string, std::string>& set,
                     wire::AcctEntity& entity) {
  auto* fields = entity.mutable_fields();
  for (const auto& [typed, raw] : set) {
    const auto [key, op] = SplitOperator(typed);
    const Setting* s = FindSetting(kind, key);
    const bool list = s != nullptr && (s->value == Value::kQosList || s->value == Value::kNameList);
    if (s == nullptr || (op != '=' && !list)) {
      return InvalidArgument(fmt::format("Unknown option: {}={}", typed, raw));
    }
    const std::string name(s->name);
    if (op != '=') {
      auto own = fields->find(name);
      const std::string before = own == fields->end() ? "" : own->second;
      // A QoS list may hold edits of the inherited one; a Preempt list is
      // always a plain list of names.
      std::string value = s->value == Value::kQosList ? EditQosList(before, op, raw)
                                                      : EditNameList(before, op, raw);
      if (value.empty()) {
        fields->erase(name);
      } else {
        (*fields)[name] = value;
      }
      continue;
    }
    if (raw.empty() || raw == "-1") {
      if (name == "DefaultAccount" || name == "Parent") {
        return InvalidArgument(fmt::format("{} cannot be cleared", name));
      }
      fields->erase(name);
      continue;
    }
    std::string value = raw;
    ROTA_RETURN_IF_ERROR(CheckValue(*s, value));
    (*fields)[name] = value;
  }
  return Status::Ok();
}

Result<std::vector<wire::AcctEntity>> PrepareModify(const std::string& kind,
                                                    const std::vector<std::string>& names,
                                                    const std::map<std::string, std::string>& set,
                                                    AccountingStore& store) {
  if (kind != "account" && kind != "user" && kind != "qos") {
    return InvalidArgument(fmt::format("Unknown entity: {}", kind));
  }
  if (set.empty()) return InvalidArgument("Nothing to set");
  auto found = store.ListEntities(kind, names);
  if (!found.ok()) return found.status();
  for (const std::string& name : names) {
    if (std::none_of(found->begin(), found->end(),
                     [&](const wire::AcctEntity& e) { return e.name() == name; })) {
      return Status(StatusCode::kNotFound, fmt::format("The {} {} doesn't exist", kind, name));
    }
  }
  const bool parent_changed = std::any_of(
      set.begin(), set.end(), [](const auto& kv) { return EqualsIgnoreCase(kv.first, "Parent"); });
  for (wire::AcctEntity& e : *found) {
    if (kind == "account" && e.name() == "root" && parent_changed) {
      return InvalidArgument("Account root is the top of the association tree: it has no parent");
    }
    ROTA_RETURN_IF_ERROR(ApplySettings(kind, set, e));
    auto* fields = e.mutable_fields();
    if (kind == "qos") ROTA_RETURN_IF_ERROR(CheckPreemptList(e.name(), *fields, {}, store));
    if (kind == "account") ROTA_RETURN_IF_ERROR(CheckQosNames(*fields, store));
    if (kind == "user" && !Exists(store, "account", (*fields)["DefaultAccount"])) {
      return Status(StatusCode::kNotFound,
                    fmt::format("The account {} doesn't exist", (*fields)["DefaultAccount"]));
    }
    if (kind == "account" && parent_changed) {
      // The new parent must exist and must not lie below the account.
      std::string at = (*fields)["Parent"];
      for (int depth = 0; at != "root"; ++depth) {
        if (at == e.name() || depth > 1000) {
          return InvalidArgument(fmt::format("Account {} cannot be its own ancestor", e.name()));
        }
        auto parent = store.ListEntities("account", {at});
        if (!parent.ok()) return parent.status();
        if (parent->empty()) {
          return Status(StatusCode::kNotFound, fmt::format("Parent account {} doesn't exist", at));
        }
        auto it = parent->front().fields().find("Parent");
        at = it == parent->front().fields().end() ? "root" : it->second;
      }
    }
  }
  return std::move(found).value();
}

Status CheckQosNames(const google::protobuf::Map<std::string, std::string>& fields,
                     AccountingStore& store) {
  std::vector<std::string> names;
  if (auto it = fields.find("QOS"); it != fields.end()) {
    for (std::string_view n : Split(it->second, ',')) {
      if (!n.empty() && (n[0] == '+' || n[0] == '-')) n.remove_prefix(1);
      if (!n.empty()) names.emplace_back(n);
    }
  }
  if (auto it = fields.find("DefaultQOS"); it != fields.end()) names.push_back(it->second);
  for (const std::string& name : names) {
    if (!Exists(store, "qos", name)) {
      return Status(StatusCode::kNotFound, fmt::format("The QOS {} doesn't exist", name));
    }
  }
  return Status::Ok();
}

bool IsUserSetting(const std::string& key) {
  return FindSetting("user", SplitOperator(key).first) != nullptr;
}

Status CheckDelete(const std::string& kind, const std::vector<std::string>& names,
                   AccountingStore& store) {
  if (kind != "account") return Status::Ok();
  if (std::find(names.begin(), names.end(), "root") != names.end()) {
    return Status(StatusCode::kFailedPrecondition,
                  "Account root is the top of the association tree and cannot be deleted");
  }

  for (const char* referrer : {"user", "account"}) {
    auto all = store.ListEntities(referrer, {});
    if (!all.ok()) return all.status();
    for (const wire::AcctEntity& e : *all) {
      const char* key = std::string_view(referrer) == "user" ? "DefaultAccount" : "Parent";
      auto it = e.fields().find(key);
      if (it == e.fields().end()) continue;
      if (std::find(names.begin(), names.end(), it->second) != names.end() &&
          std::find(names.begin(), names.end(), e.name()) == names.end()) {
        return Status(
            StatusCode::kFailedPrecondition,
            fmt::format("Account {} is still {} of {} {}", it->second,
                        std::string_view(referrer) == "user" ? "the default account" : "the parent",
                        referrer, e.name()));
      }
    }
  }
  // Then the users' other associations (sacctmgr delete user NAME where account=...).
  auto assocs = store.ListEntities("assoc", {});
  if (!assocs.ok()) return assocs.status();
  for (const wire::AcctEntity& a : *assocs) {
    auto account = a.fields().find("Account");
    auto user = a.fields().find("User");
    if (account == a.fields().end() || user == a.fields().end()) continue;
    if (std::find(names.begin(), names.end(), account->second) != names.end()) {
      return Status(StatusCode::kFailedPrecondition,
                    fmt::format("Account {} still has an association with user {}", account->second,
                                user->second));
    }
  }
  return Status::Ok();
}

}  // namespace rota::dbd
