#pragma once

// GPU readings from NVIDIA's management library, for AutoDetect=nvml nodes.
// Unlike discovery, the sampler keeps one NVML session open while rotad runs:
// XID and ECC events are delivered to an event set that must stay registered
// between samples. The library is loaded at the first Sample.

#include <memory>
#include <string>
#include <vector>

#include "noded/gpu/discovery/gpu_sampler.h"
#include "noded/gpu/discovery/nvml_library.h"

namespace rota::noded {

class NvmlSampler : public GpuSampler {
 public:
  explicit NvmlSampler(std::string library_path = kNvmlLibraryName)
      : library_path_(std::move(library_path)) {}
  ~NvmlSampler() override;  // Frees the event set and ends the session.

  std::string Name() const override { return "nvml"; }
  // Every GPU NVML counts (a GPU in MIG mode is read whole), named
  // /dev/nvidiaMINOR. A figure the GPU does not support reads 0; a GPU whose
  // queries answer GPU_IS_LOST reads as fallen off the bus. Errors: the
  // library is missing or nvmlInit fails (tried again at the next call).
  Result<std::vector<GpuReading>> Sample() override;

 private:
  Status Open();
  void ReadEvents(std::vector<GpuReading>& readings);

  std::string library_path_;
  std::unique_ptr<NvmlLibrary> lib_;  // Null until opened.
  bool session_ = false;              // nvmlInit succeeded
  nvmlEventSet_t events_ = nullptr;   // Null without event support
  std::vector<nvmlDevice_t> devices_;
  std::vector<std::string> files_;  // Parallel to devices_
};

}  // namespace rota::noded
