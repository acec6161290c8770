#pragma once

// sacctmgr's rules for accounts, users and QoS, checked by rotadbd before
// anything is stored: known settings only (by Slurm's names, any case),
// values that parse, an account's parent and a user's default account that
// exist, no deleting an account that users or other accounts still name.

#include <map>
#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "common/status.h"
#include "dbd/accounting_store.h"

namespace rota::dbd {

// Checks `entities` (accounts, users, QoS or "assoc" associations, whose
// Account and User fields say what they join), canonicalises setting names
// ("defaultaccount" -> "DefaultAccount") and fills Slurm's defaults.
// InvalidArgument / NotFound with a message for the user.
Status PrepareAdd(std::vector<wire::AcctEntity>& entities, AccountingStore& store);

// sacctmgr modify: the entities `names` of `kind` with `set` applied (an
// empty value or -1 clears a setting), checked as PrepareAdd checks. NotFound
// when one does not exist; InvalidArgument for a setting or value.
Result<std::vector<wire::AcctEntity>> PrepareModify(const std::string& kind,
                                                    const std::vector<std::string>& names,
                                                    const std::map<std::string, std::string>& set,
                                                    AccountingStore& store);

// Applies sacctmgr modify's `set` to `entity`, an entity of `kind` ("assoc"
// for an association): an empty value or -1 clears a setting, "QOS+" and
// "QOS-" edit the QoS list. InvalidArgument for a setting or value.
Status ApplySettings(const std::string& kind, const std::map<std::string, std::string>& set,
                     wire::AcctEntity& entity);

// Whether `key` (as typed) is a setting of the user itself (DefaultAccount,
// AdminLevel) rather than of its associations.
bool IsUserSetting(const std::string& key);

// NotFound when an account's or association's QOS= or DefaultQOS= names a
// QoS that does not exist.
Status CheckQosNames(const google::protobuf::Map<std::string, std::string>& fields,
                     AccountingStore& store);

// FailedPrecondition when something still refers to one of `names`.
Status CheckDelete(const std::string& kind, const std::vector<std::string>& names,
                   AccountingStore& store);

}  // namespace rota::dbd
