#include "cli/cluster_option.h"

#include <cstdlib>

#include "common/strings.h"
#include "conf/config_loader.h"

namespace rota::cli {

bool NamesOnlyLocalCluster(std::string_view names, std::string_view local_cluster) {
  bool any = false;
  for (std::string_view name : Split(names, ',')) {
    name = Trim(name);
    if (name.empty()) continue;
    if (!EqualsIgnoreCase(name, "all") && !EqualsIgnoreCase(name, local_cluster)) return false;
    any = true;
  }
  return any;
}

bool ListsLocalCluster(std::string_view names, std::string_view local_cluster) {
  for (std::string_view name : Split(names, ',')) {
    name = Trim(name);
    if (EqualsIgnoreCase(name, "all") || EqualsIgnoreCase(name, local_cluster)) return true;
  }
  return false;
}

std::string UnreachableClusterMessage(std::string_view names) {
  return "'" + std::string(names) +
         "' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list "
         "clusters' to see available clusters.";
}

Status CheckClusterOption(std::string_view names, const std::string& slurm_conf_path) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(slurm_conf_path, diags, conf::ConfigScope::kSlurmConfOnly);
  if (!config.ok()) return InvalidArgument(diags.ToString() + config.status().message());
  if (!NamesOnlyLocalCluster(names, (*config)->settings.cluster_name)) {
    return InvalidArgument(UnreachableClusterMessage(names));
  }
  return Status::Ok();
}

std::string ClustersFromEnvironment() {
  const char* value = std::getenv("SLURM_CLUSTERS");
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace rota::cli
