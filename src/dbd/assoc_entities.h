#pragma once

// Users and their associations, as sacctmgr changes them. A user is one
// "user" entity (DefaultAccount, AdminLevel) and one "assoc" entity per
// account it may run under, named AssocName(account, user), with fields
// Account, User and the association's settings (limits, Fairshare, QOS,
// DefaultQOS). rotadbd checks here, then stores what these return.

#include <map>
#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "common/status.h"
#include "dbd/accounting_store.h"

namespace rota::dbd {

// The key of (account, user)'s association among the "assoc" entities.
std::string AssocName(const std::string& account, const std::string& user);

// sacctmgr add user NAME Account=a,b [DefaultAccount=a] [settings]: the
// entities to add, checked and completed. A new user gets its user entity;
// every user gets an association for each account it has none with yet
// (the default account included). AlreadyExists when nothing would be new.
Result<std::vector<wire::AcctEntity>> PrepareAddUsers(const std::vector<wire::AcctEntity>& users,
                                                      AccountingStore& store);

// sacctmgr modify user NAME... [where Account=...] set ...: the user and
// association entities to replace. DefaultAccount must be an account the
// user has an association with; the other settings go to the user's
// associations (only those with `accounts` when given).
Result<std::vector<wire::AcctEntity>> PrepareModifyUsers(
    const std::vector<std::string>& names, const std::vector<std::string>& accounts,
    const std::map<std::string, std::string>& set, AccountingStore& store);

// sacctmgr delete user NAME... [where Account=...]: the associations to
// delete, and the users left with none (deleted too). FailedPrecondition
// when the default account's association would go while others stay.
struct UserDeletion {
  std::vector<std::string> assocs;
  std::vector<std::string> users;
};
Result<UserDeletion> PrepareDeleteUsers(const std::vector<std::string>& names,
                                        const std::vector<std::string>& accounts,
                                        AccountingStore& store);

// Stores of an older rotadbd keep a user's association settings on the user
// and have no "assoc" entities: moves them to an association with the
// user's default account. Idempotent; run when rotadbd starts.
Status MigrateUserAssociations(AccountingStore& store);

}  // namespace rota::dbd
