#pragma once

// Where a node daemon learns which GPUs its host has. One implementation per
// source: NVML (nvml_provider.h), a fake inventory file for tests and demos
// (fake_gpu_provider.h). gres.conf is not a provider: it is configuration,
// merged over what a provider found (gpu_inventory.h).

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// One GPU as a provider sees it. A GPU in MIG mode is not listed itself: each
// of its MIG instances is listed instead, as a GPU of its own type.
struct DiscoveredGpu {
  uint32_t index = 0;          // Position in the provider's list.
  std::string type;            // "a100-sxm4-80gb", or a MIG profile "1g.10gb".
  std::string device_file;     // "/dev/nvidia0"; a MIG instance's access file when known.
  uint32_t minor = 0;          // The /dev/nvidiaN minor; a MIG instance's parent's.
  std::string pci_bus_id;      // "00000000:07:00.0"; a MIG instance's parent's.
  std::vector<uint32_t> cpus;  // CPU ids close to the GPU, ascending; empty: unknown.
  std::string uuid;            // "GPU-…" or "MIG-…"; "" when unknown.
  // MIG instances only: the parent GPU's device file, which a job needs as
  // well as the instance's own.
  std::string parent_device_file;
  // Fake inventories only (Metrics=): the file that scripts this GPU's
  // readings over time (fake_gpu_sampler.h).
  std::string scripted_readings;

  bool is_mig() const { return !parent_device_file.empty(); }
  bool operator==(const DiscoveredGpu&) const = default;
};

class GpuProvider {
 public:
  virtual ~GpuProvider() = default;
  // What the source is, for logs: "nvml", "fake inventory /path".
  virtual std::string Name() const = 0;
  // The GPUs there are now. An error says why the source could not answer
  // (library missing, driver not loaded, unreadable file); it is not "no GPUs".
  virtual Result<std::vector<DiscoveredGpu>> Discover() = 0;
};

}  // namespace rota::noded
