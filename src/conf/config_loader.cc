#include "conf/config_loader.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "conf/config_reader.h"
#include "conf/cross_validation.h"
#include "conf/gres_conf_parser.h"
#include "conf/slurm_conf_parser.h"
#include "conf/topology_conf_parser.h"

namespace rota::conf {

std::string DefaultSlurmConfPath() {
  const char* env = std::getenv("SLURM_CONF");
  return env != nullptr && *env != '\0' ? std::string(env) : "/etc/slurm/slurm.conf";
}

Result<std::shared_ptr<const ClusterConfig>> LoadClusterConfig(const std::string& slurm_conf_path,
                                                               Diagnostics& diags,
                                                               ConfigScope scope) {
  auto config = std::make_shared<ClusterConfig>();
  config->slurm_conf_path = slurm_conf_path;
  int errors_before = diags.error_count();

  std::vector<ConfigLine> slurm_lines = ReadConfigFile(slurm_conf_path, true, diags);
  ParseSlurmConf(slurm_lines, *config, diags);

  if (scope == ConfigScope::kCluster) {
    std::filesystem::path dir = std::filesystem::path(slurm_conf_path).parent_path();
    auto beside = [&dir](const char* name) { return (dir / name).string(); };
    config->gres = ParseGresConf(ReadConfigFile(beside("gres.conf"), false, diags), *config, diags);
    config->cgroup = ParseCgroupConf(ReadConfigFile(beside("cgroup.conf"), false, diags), diags);
    if (config->settings.topology_plugin == "topology/tree") {
      std::string path = beside("topology.conf");
      config->topology = ParseTopologyConf(ReadConfigFile(path, true, diags), *config, path, diags);
    }
  }
  // Without gres.conf the checks against it find nothing to compare.
  CrossValidate(*config, diags);

  int errors = diags.error_count() - errors_before;
  if (errors > 0) {
    return InvalidArgument(fmt::format("{} {} in the configuration at {}", errors,
                                       errors == 1 ? "error" : "errors", slurm_conf_path));
  }
  return std::shared_ptr<const ClusterConfig>(std::move(config));
}

}  // namespace rota::conf
