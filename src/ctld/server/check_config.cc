#include "ctld/server/check_config.h"

#include <fmt/format.h>

#include "conf/config_doctor.h"
#include "conf/config_loader.h"

namespace rota::ctld {

int CheckConfig(const std::string& slurm_conf_path, std::ostream& out, std::ostream& err) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(slurm_conf_path, diags);
  // The traps are judged only in a configuration that loads: an error
  // there comes first.
  if (config.ok()) conf::DiagnoseTraps(**config, diags);
  err << diags.ToString();
  int warnings = static_cast<int>(diags.all().size()) - diags.error_count();
  if (!config.ok()) {
    err << "rotactld: " << config.status().message() << '\n';
    return 1;
  }
  const conf::ClusterConfig& c = **config;
  out << fmt::format("rotactld: configuration OK: cluster {}, {} nodes, {} partitions, {} {}\n",
                     c.settings.cluster_name, c.nodes.size(), c.partitions.size(), warnings,
                     warnings == 1 ? "warning" : "warnings");
  return 0;
}

}  // namespace rota::ctld
