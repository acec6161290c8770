#pragma once

// -M/--clusters: Slurm's commands may speak to any cluster of a site's
// accounting database; Rota's speak to one, slurm.conf's ClusterName. A value
// is taken when every name in it is that cluster or "all" (which, for a site
// of one cluster, names it too); anything else is refused as Slurm refuses a
// cluster it cannot find, before anything is contacted.

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::cli {

// True when `names` (comma-separated, as given to -M) names only
// `local_cluster` (case-insensitive, as the accounting database keeps names
// in lower case) or "all". Empty items are skipped; a value naming nothing
// is refused.
bool NamesOnlyLocalCluster(std::string_view names, std::string_view local_cluster);

// True when `names` holds `local_cluster` or "all" among others: what sacct
// -M lists of rotadbd's one cluster.
bool ListsLocalCluster(std::string_view names, std::string_view local_cluster);

// Slurm's refusal of a -M value, without the "PROGRAM: error: " prefix.
std::string UnreachableClusterMessage(std::string_view names);

// What a command does with its -M value: Ok, or the refusal (the message
// above), or slurm.conf's error when it cannot be read. Reads slurm.conf at
// `slurm_conf_path` only.
Status CheckClusterOption(std::string_view names, const std::string& slurm_conf_path);

// SLURM_CLUSTERS, the query commands' default for -M/--clusters ("" when
// unset); the command line's -M replaces it.
std::string ClustersFromEnvironment();

}  // namespace rota::cli
