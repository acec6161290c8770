#include "dbd/acct_entities.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "common/duration.h"
#include "common/strings.h"
#include "common/tres.h"

namespace rota::dbd {
namespace {

enum class Value { kText, kCount, kDuration, kTres, kAdminLevel, kFactor };

struct Setting {
  std::string_view name;
  Value value;
};

constexpr std::array kAccountSettings = {Setting{"Description", Value::kText},
                                         Setting{"Organization", Value::kText},
                                         Setting{"Parent", Value::kText}};
constexpr std::array kUserSettings = {Setting{"DefaultAccount", Value::kText},
                                      Setting{"AdminLevel", Value::kAdminLevel}};
constexpr std::array kQosSettings = {
    Setting{"Description", Value::kText},           Setting{"Priority", Value::kCount},
    Setting{"MaxWall", Value::kDuration},           Setting{"MaxJobsPerUser", Value::kCount},
    Setting{"MaxSubmitJobsPerUser", Value::kCount}, Setting{"GrpJobs", Value::kCount},
    Setting{"GrpSubmitJobs", Value::kCount},        Setting{"GrpTRES", Value::kTres},
    Setting{"MaxTRESPerUser", Value::kTres},        Setting{"MaxTRESPerJob", Value::kTres},
    Setting{"UsageFactor", Value::kFactor},         Setting{"Flags", Value::kText}};

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
  return Find(kQosSettings, key);
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

}  // namespace

Status PrepareAdd(std::vector<wire::AcctEntity>& entities, AccountingStore& store) {
  for (wire::AcctEntity& e : entities) {
    const std::string& kind = e.kind();
    if (kind != "account" && kind != "user" && kind != "qos") {
      return InvalidArgument(fmt::format("Unknown entity: {}", kind));
    }
    if (e.name().empty()) return InvalidArgument("No name given");
    std::map<std::string, std::string> canonical;
    for (const auto& [key, raw] : e.fields()) {
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
    } else {
      canonical.try_emplace("Priority", "0");
      canonical.try_emplace("UsageFactor", "1.000000");
    }
    e.clear_fields();
    for (auto& [key, value] : canonical) (*e.mutable_fields())[key] = value;
  }
  return Status::Ok();
}

Status CheckDelete(const std::string& kind, const std::vector<std::string>& names,
                   AccountingStore& store) {
  if (kind != "account") return Status::Ok();
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
  return Status::Ok();
}

}  // namespace rota::dbd
