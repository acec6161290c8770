#pragma once

// Which GPUs rotad offers, and where that knowledge came from. The source is
// chosen once at start:
//   ROTA_FAKE_GPUS=FILE set        -> the fake inventory (tests and demos),
//   gres.conf AutoDetect=nvml      -> NVML,
//   otherwise (AutoDetect=off, ...) -> gres.conf, else the NodeName Gres= count.
// A discovered list is merged with gres.conf (MergeWithGresConf). When the
// provider fails, rotad falls back to gres.conf and registers what that
// gives; if it is less than slurm.conf promises, the controller drains the
// node with a reason that says so.

#include <memory>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "noded/gpu/discovery/gpu_provider.h"
#include "noded/gpu/discovery/gpu_sampler.h"
#include "noded/gpu/discovery/mig_minors.h"
#include "noded/gpu/discovery/nvml_library.h"
#include "noded/gpu/gpu_allocator.h"

namespace rota::noded {

struct GpuInventoryOptions {
  // ROTA_FAKE_GPUS: when set, the fake inventory file to read.
  std::string fake_gpus_file;
  // Where NvmlProvider looks (tests point these at fakes).
  std::string nvml_library = kNvmlLibraryName;
  std::string mig_minors_path = kMigMinorsPath;
  // SlurmdParameters=config_overrides: configured GPUs count even when their
  // device files are missing.
  bool config_overrides = false;
};

struct GpuInventory {
  std::vector<GpuDevice> devices;
  // For the start-up log line: "nvml", "fake inventory FILE", "gres.conf",
  // "slurm.conf Gres=", "gres.conf (nvml failed)".
  std::string source;
  // Things the log should say: why a provider failed, gres.conf files that
  // are missing or that discovery did not find.
  std::vector<std::string> warnings;
};

// The sampler of GPU readings for the same source as the inventory: the fake
// inventory's scripts, NVML for AutoDetect=nvml, otherwise none (null): GPUs
// known only from gres.conf are not sampled.
std::unique_ptr<GpuSampler> MakeGpuSampler(const conf::ClusterConfig& config,
                                           const std::string& node,
                                           const GpuInventoryOptions& options);

GpuInventory TakeGpuInventory(const conf::ClusterConfig& config, const std::string& node,
                              const GpuInventoryOptions& options);

// `found` (a provider's list) with gres.conf's word on top. A gres.conf gpu
// line whose File= is a discovered GPU's device file gives it its Type= (when
// set) and Cores=. A GPU no line names takes a configured type (of a gres.conf
// line without File=, or of the NodeName line's Gres=) that its discovered
// type contains, ignoring case: "a100-sxm4-80gb" counts as "a100" where the
// configuration says a100, so registration matches slurm.conf. gres.conf
// files that were not found are not counted; `warnings` names them.
// Indices are positions in the result.
std::vector<GpuDevice> MergeWithGresConf(const std::vector<DiscoveredGpu>& found,
                                         const conf::ClusterConfig& config, const std::string& node,
                                         std::vector<std::string>* warnings);

}  // namespace rota::noded
