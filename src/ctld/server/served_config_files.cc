#include "ctld/server/served_config_files.h"

#include "api/config_fetch.h"
#include "conf/config_files.h"

namespace rota::ctld {

Result<ServedConfigFiles> ReadServedConfigFiles(const conf::ClusterConfig& config) {
  if (!config.settings.enable_configless) return ServedConfigFiles();
  auto files = conf::CollectConfigFiles(config.slurm_conf_path);
  if (!files.ok()) return files.status();
  return std::make_shared<const wire::ConfigFilesResponse>(api::ConfigFilesToWire(*files));
}

}  // namespace rota::ctld
