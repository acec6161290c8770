#include "dbd/assoc_entities.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/strings.h"
#include "dbd/acct_entities.h"

namespace rota::dbd {
namespace {

std::string FieldOf(const wire::AcctEntity& e, const char* key) {
  auto it = e.fields().find(key);
  return it == e.fields().end() ? "" : it->second;
}

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// Every stored association of the users `names` (all users when empty).
Result<std::vector<wire::AcctEntity>> AssocsOf(const std::vector<std::string>& names,
                                               AccountingStore& store) {
  auto all = store.ListEntities("assoc", {});
  if (!all.ok()) return all.status();
  if (names.empty()) return all;
  std::vector<wire::AcctEntity> out;
  for (wire::AcctEntity& a : *all) {
    if (Contains(names, FieldOf(a, "User"))) out.push_back(std::move(a));
  }
  return out;
}

wire::AcctEntity NewAssoc(const std::string& account, const std::string& user,
                          const std::map<std::string, std::string>& settings) {
  wire::AcctEntity a;
  a.set_kind("assoc");
  a.set_name(AssocName(account, user));
  for (const auto& [k, v] : settings) (*a.mutable_fields())[k] = v;
  (*a.mutable_fields())["Account"] = account;
  (*a.mutable_fields())["User"] = user;
  return a;
}

}  // namespace

std::string AssocName(const std::string& account, const std::string& user) {
  return account + "|" + user;
}

Result<std::vector<wire::AcctEntity>> PrepareAddUsers(const std::vector<wire::AcctEntity>& users,
                                                      AccountingStore& store) {
  std::vector<wire::AcctEntity> new_users, assocs;
  for (const wire::AcctEntity& typed : users) {
    if (typed.name().empty()) return InvalidArgument("No name given");
    wire::AcctEntity user;
    user.set_kind("user");
    user.set_name(typed.name());
    std::vector<std::string> accounts;
    std::map<std::string, std::string> assoc_settings;
    std::string default_account;
    for (const auto& [key, value] : typed.fields()) {
      if (EqualsIgnoreCase(key, "Account") || EqualsIgnoreCase(key, "Accounts")) {
        for (std::string& a : SplitCommaList(value)) {
          if (!Contains(accounts, a)) accounts.push_back(std::move(a));
        }
      } else if (IsUserSetting(key)) {
        if (EqualsIgnoreCase(key, "DefaultAccount")) default_account = value;
        (*user.mutable_fields())[key] = value;
      } else {
        assoc_settings[key] = value;
      }
    }
    auto stored = store.ListEntities("user", {typed.name()});
    if (!stored.ok()) return stored.status();
    if (stored->empty()) {
      // As Slurm: a new user's first account is its default unless one is named.
      if (default_account.empty() && !accounts.empty()) {
        default_account = accounts.front();
        (*user.mutable_fields())["DefaultAccount"] = default_account;
      }
      if (!default_account.empty() && !Contains(accounts, default_account)) {
        accounts.insert(accounts.begin(), default_account);
      }
      new_users.push_back(std::move(user));
    }
    auto existing = AssocsOf({typed.name()}, store);
    if (!existing.ok()) return existing.status();
    for (const std::string& account : accounts) {
      const bool known = std::any_of(existing->begin(), existing->end(), [&](const auto& a) {
        return FieldOf(a, "Account") == account;
      });
      if (!known) assocs.push_back(NewAssoc(account, typed.name(), assoc_settings));
    }
  }
  ROTA_RETURN_IF_ERROR(PrepareAdd(new_users, store));
  ROTA_RETURN_IF_ERROR(PrepareAdd(assocs, store));
  if (new_users.empty() && assocs.empty()) {
    return Status(StatusCode::kAlreadyExists, "Nothing new added");
  }
  std::vector<wire::AcctEntity> out = std::move(new_users);
  for (wire::AcctEntity& a : assocs) out.push_back(std::move(a));
  return out;
}

Result<std::vector<wire::AcctEntity>> PrepareModifyUsers(
    const std::vector<std::string>& names, const std::vector<std::string>& accounts,
    const std::map<std::string, std::string>& set, AccountingStore& store) {
  std::map<std::string, std::string> user_set, assoc_set;
  for (const auto& [key, value] : set) (IsUserSetting(key) ? user_set : assoc_set)[key] = value;
  if (set.empty()) return InvalidArgument("Nothing to set");
  auto assocs = AssocsOf(names, store);
  if (!assocs.ok()) return assocs.status();
  std::vector<wire::AcctEntity> out;
  if (!user_set.empty()) {
    auto users = PrepareModify("user", names, user_set, store);
    if (!users.ok()) return users.status();
    for (const wire::AcctEntity& u : *users) {
      const std::string def = FieldOf(u, "DefaultAccount");
      const bool associated = std::any_of(assocs->begin(), assocs->end(), [&](const auto& a) {
        return FieldOf(a, "User") == u.name() && FieldOf(a, "Account") == def;
      });
      if (!associated) {
        return Status(StatusCode::kNotFound,
                      fmt::format("User {} has no association with account {}", u.name(), def));
      }
    }
    out = std::move(users).value();
  } else {
    auto users = store.ListEntities("user", names);
    if (!users.ok()) return users.status();
    for (const std::string& name : names) {
      if (std::none_of(users->begin(), users->end(),
                       [&](const wire::AcctEntity& u) { return u.name() == name; })) {
        return Status(StatusCode::kNotFound, fmt::format("The user {} doesn't exist", name));
      }
    }
  }
  if (assoc_set.empty()) return out;
  size_t matched = 0;
  for (wire::AcctEntity& a : *assocs) {
    if (!accounts.empty() && !Contains(accounts, FieldOf(a, "Account"))) continue;
    ROTA_RETURN_IF_ERROR(ApplySettings("assoc", assoc_set, a));
    ROTA_RETURN_IF_ERROR(CheckQosNames(a.fields(), store));
    out.push_back(std::move(a));
    ++matched;
  }
  if (matched == 0) return Status(StatusCode::kNotFound, "No associations match");
  return out;
}

Result<UserDeletion> PrepareDeleteUsers(const std::vector<std::string>& names,
                                        const std::vector<std::string>& accounts,
                                        AccountingStore& store) {
  auto users = store.ListEntities("user", names);
  if (!users.ok()) return users.status();
  auto assocs = AssocsOf(names, store);
  if (!assocs.ok()) return assocs.status();
  UserDeletion out;
  for (const wire::AcctEntity& u : *users) {
    std::vector<std::string> gone;
    bool others_stay = false, default_goes = false;
    for (const wire::AcctEntity& a : *assocs) {
      if (FieldOf(a, "User") != u.name()) continue;
      const std::string account = FieldOf(a, "Account");
      if (accounts.empty() || Contains(accounts, account)) {
        gone.push_back(a.name());
        default_goes |= account == FieldOf(u, "DefaultAccount");
      } else {
        others_stay = true;
      }
    }
    if (others_stay && default_goes) {
      return Status(StatusCode::kFailedPrecondition,
                    fmt::format("Account {} is the default account of user {}: set another "
                                "DefaultAccount first",
                                FieldOf(u, "DefaultAccount"), u.name()));
    }
    for (std::string& g : gone) out.assocs.push_back(std::move(g));
    if (!others_stay && (accounts.empty() || default_goes)) out.users.push_back(u.name());
  }
  return out;
}

Status MigrateUserAssociations(AccountingStore& store) {
  auto users = store.ListEntities("user", {});
  if (!users.ok()) return users.status();
  auto assocs = AssocsOf({}, store);
  if (!assocs.ok()) return assocs.status();
  std::set<std::string> known;
  for (const wire::AcctEntity& a : *assocs) known.insert(a.name());
  std::vector<wire::AcctEntity> added, replaced;
  for (wire::AcctEntity& u : *users) {
    const std::string def = FieldOf(u, "DefaultAccount");
    if (def.empty() || known.count(AssocName(def, u.name())) > 0) continue;
    std::map<std::string, std::string> settings;
    for (auto it = u.mutable_fields()->begin(); it != u.mutable_fields()->end();) {
      if (IsUserSetting(it->first)) {
        ++it;
        continue;
      }
      settings.emplace(it->first, it->second);
      it = u.mutable_fields()->erase(it);
    }
    added.push_back(NewAssoc(def, u.name(), settings));
    replaced.push_back(std::move(u));
  }
  if (added.empty()) return Status::Ok();
  ROTA_RETURN_IF_ERROR(store.AddEntities(added));
  return store.ReplaceEntities(replaced);
}

}  // namespace rota::dbd
