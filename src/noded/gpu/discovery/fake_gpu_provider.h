#pragma once

// GPUs read from an inventory file instead of hardware: for tests, demos and
// test clusters of several rotad on one host, each pretending to have
// different GPUs. Used only when ROTA_FAKE_GPUS names the file
// (docs/configuration.md).
//
// The file has one GPU per line, as Key=Value words separated by spaces;
// '#' starts a comment, blank lines are skipped:
//   # index 0, 1, ... in line order
//   Type=a100 File=/dev/nvidia0 Cpus=0-15 PciBusId=00000000:07:00.0
//   Type=1g.10gb File=/dev/nvidia-caps/nvidia-cap21 ParentFile=/dev/nvidia1 Uuid=MIG-1
// Type= and File= are required. Minor= defaults to the digits that end File=
// (0 without). Cpus= is a CPU list ("0-3,8"). Metrics= names a file that
// scripts the GPU's readings over time (fake_gpu_sampler.h). Keys are
// case-insensitive.

#include <string>
#include <string_view>

#include "noded/gpu/discovery/gpu_provider.h"

namespace rota::noded {

// The GPUs an inventory file's `text` lists; errors name `origin` and the line.
Result<std::vector<DiscoveredGpu>> ParseFakeGpuInventory(std::string_view text,
                                                         std::string_view origin);

class FakeGpuProvider : public GpuProvider {
 public:
  explicit FakeGpuProvider(std::string inventory_path) : path_(std::move(inventory_path)) {}

  std::string Name() const override { return "fake inventory " + path_; }
  // Reads the file anew at each call. Errors: unreadable file, bad line.
  Result<std::vector<DiscoveredGpu>> Discover() override;

 private:
  std::string path_;
};

}  // namespace rota::noded
