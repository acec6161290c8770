#include "noded/node_parts.h"

#include "api/auth_settings.h"
#include "conf/config_loader.h"
#include "noded/cage/cgroup_factory.h"
#include "noded/gpu/gpu_inventory.h"

namespace rota::noded {

Result<NodeParts> BuildNodeParts(const std::string& slurm_conf_path, const std::string& node_name,
                                 const std::string& fake_gpus_file) {
  NodeParts parts;
  auto config = conf::LoadClusterConfig(slurm_conf_path, parts.findings);
  if (!config.ok()) return config.status();
  parts.config = *config;
  auto settings = ResolveNodeSettings(*parts.config, node_name);
  if (!settings.ok()) return settings.status();
  parts.settings = std::move(settings).value();
  parts.auth = api::AuthSettingsFor(*parts.config);
  auto issuer = auth::MakeIssuer(parts.auth);
  if (!issuer.ok()) return issuer.status();

  GpuInventoryOptions gpu_options;
  gpu_options.fake_gpus_file = fake_gpus_file;
  gpu_options.config_overrides = parts.settings.config_overrides;
  GpuInventory inventory = TakeGpuInventory(*parts.config, node_name, gpu_options);
  parts.gpu_options = gpu_options;
  parts.gpu_source = inventory.source;
  parts.gpu_warnings = std::move(inventory.warnings);
  parts.gpus = std::make_unique<GpuAllocator>(std::move(inventory.devices));
  parts.cgroups =
      MakeCgroupBackend(parts.config->cgroup, node_name,
                        parts.config->settings.job_acct_gather_type == "jobacct_gather/cgroup");
  parts.controller =
      std::make_unique<ControllerLink>(parts.settings.controllers, std::move(issuer).value());
  return parts;
}

}  // namespace rota::noded
