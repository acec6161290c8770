#pragma once

// GPUs as NVIDIA's management library (NVML) reports them: gres.conf's
// AutoDetect=nvml. The library is loaded at each Discover and unloaded after,
// so a daemon holds no NVML state between discoveries.

#include <string>

#include "noded/gpu/discovery/gpu_provider.h"
#include "noded/gpu/discovery/mig_minors.h"
#include "noded/gpu/discovery/nvml_library.h"

namespace rota::noded {

struct NvmlProviderOptions {
  // What to dlopen; tests point it at a fake library.
  std::string library_path = kNvmlLibraryName;
  // Where MIG instances' device minors are listed (mig_minors.h).
  std::string mig_minors_path = kMigMinorsPath;
  // The affinity mask asked for covers CPU ids below this.
  uint32_t max_cpus = 4096;
};

class NvmlProvider : public GpuProvider {
 public:
  explicit NvmlProvider(NvmlProviderOptions options = {}) : options_(std::move(options)) {}

  std::string Name() const override { return "nvml"; }
  // Every GPU NVML counts, in NVML's order; a GPU in MIG mode is replaced by
  // its MIG instances (none when it has none yet). Errors: the library is
  // missing or lacks a required symbol, nvmlInit fails, or a query about a
  // GPU fails (a query a GPU does not support, like CPU affinity on some
  // boards, leaves that field empty instead).
  Result<std::vector<DiscoveredGpu>> Discover() override;

 private:
  NvmlProviderOptions options_;
};

}  // namespace rota::noded
