#pragma once
// sacctmgr's association listings: `show assoc` (one row per account and per
// user association, in the tree's order) and `show user withassoc` (one row
// per user association). Pure: sacctmgr_main.cc fetches the entities.

#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "cli/accounting/sacct_fields.h"
#include "cli/accounting/sacctmgr_command.h"
#include "common/status.h"

namespace rota::cli {

// What rotadbd holds, as its listings return it.
struct AssocData {
  std::string cluster;  // ClusterName, printed in the Cluster column
  std::vector<wire::AcctEntity> accounts, users, assocs;
};

// Rows of `sacctmgr show assoc`: depth first from root, each account's own
// row, then its users' associations, then its sub-accounts, by name. QOS and
// Def QOS show what applies (inherited down the tree); the limits show what
// each association sets itself. `command.users` / `command.accounts` /
// `command.clusters` filter.
Result<std::string> RenderAssociations(const SacctmgrCommand& command, const AssocData& data,
                                       SacctLayout layout, bool no_header);

// `sacctmgr show user [NAME...] withassoc`.
Result<std::string> RenderUsersWithAssocs(const SacctmgrCommand& command, const AssocData& data,
                                          SacctLayout layout, bool no_header);

}  // namespace rota::cli
