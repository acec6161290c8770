#include "noded/gpu/gpu_inventory.h"

#include <fmt/format.h>

#include <memory>

#include "common/strings.h"
#include "noded/gpu/discovery/fake_gpu_provider.h"
#include "noded/gpu/discovery/fake_gpu_sampler.h"
#include "noded/gpu/discovery/nvml_provider.h"
#include "noded/gpu/discovery/nvml_sampler.h"

namespace rota::noded {
namespace {

std::vector<const conf::GresDevice*> GpuLinesOf(const conf::ClusterConfig& config,
                                                const std::string& node) {
  std::vector<const conf::GresDevice*> out;
  if (const std::vector<conf::GresDevice>* described = config.gres.DevicesOf(node)) {
    for (const conf::GresDevice& d : *described) {
      if (d.name == "gpu") out.push_back(&d);
    }
  }
  return out;
}

// Types the configuration names for `node` without tying them to a file.
std::vector<std::string> LooseTypes(const conf::ClusterConfig& config, const std::string& node,
                                    const std::vector<const conf::GresDevice*>& lines) {
  std::vector<std::string> out;
  for (const conf::GresDevice* d : lines) {
    if (d->file.empty() && !d->type.empty()) out.push_back(d->type);
  }
  if (const conf::NodeConfig* n = config.FindNode(node)) {
    for (const GresSpec& g : n->gres) {
      if (g.name == "gpu" && !g.type.empty()) out.push_back(g.type);
    }
  }
  return out;
}

std::unique_ptr<GpuProvider> ProviderFor(const conf::ClusterConfig& config, const std::string& node,
                                         const GpuInventoryOptions& options,
                                         std::vector<std::string>* warnings) {
  if (!options.fake_gpus_file.empty()) {
    return std::make_unique<FakeGpuProvider>(options.fake_gpus_file);
  }
  std::string mode = ToLower(config.gres.AutoDetectFor(node));
  if (mode == "nvml") {
    NvmlProviderOptions nvml;
    nvml.library_path = options.nvml_library;
    nvml.mig_minors_path = options.mig_minors_path;
    return std::make_unique<NvmlProvider>(std::move(nvml));
  }
  if (!mode.empty() && mode != "off") {
    warnings->push_back(
        fmt::format("gres.conf AutoDetect={} is not supported by rotad; using gres.conf", mode));
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<GpuSampler> MakeGpuSampler(const conf::ClusterConfig& config,
                                           const std::string& node,
                                           const GpuInventoryOptions& options) {
  if (!options.fake_gpus_file.empty()) {
    return std::make_unique<FakeGpuSampler>(options.fake_gpus_file);
  }
  if (ToLower(config.gres.AutoDetectFor(node)) == "nvml") {
    return std::make_unique<NvmlSampler>(options.nvml_library);
  }
  return nullptr;
}

std::vector<GpuDevice> MergeWithGresConf(const std::vector<DiscoveredGpu>& found,
                                         const conf::ClusterConfig& config, const std::string& node,
                                         std::vector<std::string>* warnings) {
  const std::vector<const conf::GresDevice*> lines = GpuLinesOf(config, node);
  const std::vector<std::string> loose_types = LooseTypes(config, node, lines);
  std::vector<bool> line_matched(lines.size(), false);
  std::vector<GpuDevice> out;
  for (const DiscoveredGpu& gpu : found) {
    GpuDevice device;
    device.index = static_cast<uint32_t>(out.size());
    device.type = gpu.type;
    device.file = gpu.device_file;
    device.cpus = gpu.cpus;
    device.uuid = gpu.uuid;
    device.parent_file = gpu.parent_device_file;
    bool named = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i]->file.empty() || lines[i]->file != gpu.device_file) continue;
      line_matched[i] = named = true;
      if (!lines[i]->type.empty()) device.type = lines[i]->type;
      device.cores = lines[i]->cores;
      device.more_files = lines[i]->more_files;
      break;
    }
    if (!named) {
      const std::string discovered = ToLower(gpu.type);
      for (const std::string& type : loose_types) {
        if (discovered.find(ToLower(type)) != std::string::npos) {
          device.type = type;
          break;
        }
      }
    }
    out.push_back(std::move(device));
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i]->file.empty() || line_matched[i]) continue;
    warnings->push_back(fmt::format("{}: GPU {} was not discovered; not counted",
                                    lines[i]->where.ToString(), lines[i]->file));
  }
  return out;
}

GpuInventory TakeGpuInventory(const conf::ClusterConfig& config, const std::string& node,
                              const GpuInventoryOptions& options) {
  GpuInventory inventory;
  std::unique_ptr<GpuProvider> provider = ProviderFor(config, node, options, &inventory.warnings);
  std::string fallback_note;
  if (provider) {
    Result<std::vector<DiscoveredGpu>> found = provider->Discover();
    if (found.ok()) {
      inventory.devices = MergeWithGresConf(*found, config, node, &inventory.warnings);
      inventory.source = provider->Name();
      return inventory;
    }
    inventory.warnings.push_back(
        fmt::format("{}; falling back to the configured GPUs", found.status().message()));
    fallback_note = fmt::format(" ({} failed)", provider->Name());
  }
  inventory.source =
      (GpuLinesOf(config, node).empty() ? "slurm.conf Gres=" : "gres.conf") + fallback_note;
  inventory.devices = GpuAllocator::InventoryOf(config, node);
  if (!options.config_overrides) {
    // Report what is there: the controller drains a node short of its
    // configuration, rather than have its jobs fail here one by one.
    std::vector<std::string> missing;
    inventory.devices = GpuAllocator::Present(std::move(inventory.devices), &missing);
    for (const std::string& file : missing) {
      inventory.warnings.push_back(
          fmt::format("GPU device {} of gres.conf is not there; not counted", file));
    }
  }
  return inventory;
}

}  // namespace rota::noded
