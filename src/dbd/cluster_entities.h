#pragma once

// Clusters and the root association, as rotadbd keeps them. The cluster
// named by slurm.conf's ClusterName (the "home" cluster) exists whether or not
// it is stored: the association tree (accounts, users, their associations)
// is its. Other clusters can be added and deleted by name (sacctmgr add
// cluster), for scripts that create them before a controller first runs.
//
// The root association is what Slurm creates with a cluster: the account
// root (the tree's top, QOS=normal), the user root (Administrator) with an
// association under it, and the QoS normal. rotadbd stores them when it
// starts on a store that lacks them, so that limits and QoS lists set on
// root are inherited by every account like any parent's.

#include <string>
#include <vector>

#include "accounting_admin.pb.h"
#include "common/status.h"
#include "dbd/accounting_store.h"

namespace rota::dbd {

// The home cluster as `sacctmgr show cluster` lists it.
struct HomeCluster {
  std::string name;  // ClusterName
  std::string control_host;
  uint16_t control_port = 0;
};

// sacctmgr add cluster NAME...: checked (names only, no settings). The home
// cluster and stored clusters are AlreadyExists.
Status PrepareAddClusters(std::vector<wire::AcctEntity>& clusters, const HomeCluster& home,
                          AccountingStore& store);

// The clusters `names` (all when empty), stored or the home cluster, by
// name, with the fields `sacctmgr show cluster` prints (ControlHost,
// ControlPort, RPC, Fairshare, QOS: the root association's).
Result<std::vector<wire::AcctEntity>> ListClusters(const std::vector<std::string>& names,
                                                   const HomeCluster& home, AccountingStore& store);

// sacctmgr delete cluster: FailedPrecondition for the home cluster, whose
// associations live as long as rotadbd serves it.
Status CheckDeleteClusters(const std::vector<std::string>& names, const HomeCluster& home,
                           AccountingStore& store);

// Stores what of the root association is missing: the QoS normal, the
// account root (QOS=normal), the user root (DefaultAccount=root,
// AdminLevel=Administrator) and its association with root. Idempotent; run
// when rotadbd starts.
Status EnsureRootAssociation(AccountingStore& store);

}  // namespace rota::dbd
