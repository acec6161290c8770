#pragma once

// What rotad and each rota-stepd build alike from slurm.conf for one node:
// the configuration and the node's settings, the GPUs it has, its cage, and
// its link to the controller. Built in one place so both see the same node.

#include <memory>
#include <string>
#include <vector>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "conf/diagnostics.h"
#include "noded/cage/cgroup_backend.h"
#include "noded/controller_link.h"
#include "noded/gpu/gpu_allocator.h"
#include "noded/gpu/gpu_inventory.h"
#include "noded/node_context.h"
#include "noded/node_settings.h"

namespace rota::noded {

struct NodeParts {
  std::shared_ptr<const conf::ClusterConfig> config;
  conf::Diagnostics findings;  // The configuration's warnings, for the caller to log
  NodeSettings settings;
  auth::AuthSettings auth;
  std::unique_ptr<GpuAllocator> gpus;
  std::string gpu_source;                 // For the start-up log line
  std::vector<std::string> gpu_warnings;  // Likewise
  GpuInventoryOptions gpu_options;        // Where the GPUs were looked for (MakeGpuSampler)
  std::unique_ptr<CgroupBackend> cgroups;
  std::unique_ptr<ControllerLink> controller;

  // The context jobs share; `stop` is the owner's.
  NodeContext Context(StopFlag* stop) const {
    return NodeContext{config, settings, gpus.get(), cgroups.get(), controller.get(), stop};
  }
};

// `fake_gpus_file`: ROTA_FAKE_GPUS's inventory ("" when not set).
Result<NodeParts> BuildNodeParts(const std::string& slurm_conf_path, const std::string& node_name,
                                 const std::string& fake_gpus_file);

}  // namespace rota::noded
