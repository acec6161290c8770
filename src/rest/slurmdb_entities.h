#pragma once

// /slurmdb/v0.0.38's associations, accounts, users and QOS: rotadbd's
// entities (sacctmgr's, settings by Slurm's names) in dbv0.0.38's shapes.
// Pure: the handlers in slurmdb_api.cc fetch the entities.
//
// Settings Rota keeps map onto dbv0.0.38's limit objects; limits it has no
// setting for are null (counts) or [] (TRES lists), as slurmrestd writes an
// unset limit.

#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "rest/rest_json.h"

namespace rota::rest {

// What rotadbd holds, as kDbdListEntities lists it.
struct AccountingEntities {
  std::string cluster;  // ClusterName: rotadbd keeps one association tree
  std::vector<wire::AcctEntity> accounts, users, assocs;
};

// Which associations GET /associations lists: empty passes everything.
struct AssociationFilter {
  std::string cluster, account, user, partition;
};

// Every account's own association (user null) and every user's, by account
// then user, with the QOS list and default QOS that apply to each (inherited
// down the tree as sacctmgr shows them).
Json AssociationsJson(const AccountingEntities& data, const AssociationFilter& filter);

// `data.accounts`, each with its associations (its own and its users').
Json AccountsJson(const AccountingEntities& data);

// `data.users`, each with its associations.
Json UsersJson(const AccountingEntities& data);

// QOS entities as dbv0.0.38's qos objects.
Json QosJson(const std::vector<wire::AcctEntity>& qos);

}  // namespace rota::rest
