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

// Checks `entities` (all of one kind), canonicalises setting names
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

// FailedPrecondition when something still refers to one of `names`.
Status CheckDelete(const std::string& kind, const std::vector<std::string>& names,
                   AccountingStore& store);

}  // namespace rota::dbd
