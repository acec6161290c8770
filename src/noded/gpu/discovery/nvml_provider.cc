#include "noded/gpu/discovery/nvml_provider.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "noded/gpu/discovery/gpu_type_name.h"

namespace rota::noded {
namespace {

// One NVML session: nvmlInit on creation, nvmlShutdown on every way out.
class NvmlSession {
 public:
  explicit NvmlSession(const NvmlLibrary& lib) : lib_(lib) {}
  ~NvmlSession() {
    if (initialized_) lib_.shutdown();
  }
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  Status Init() {
    nvmlReturn_t rc = lib_.init();
    if (rc != NVML_SUCCESS) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("NVML: nvmlInit_v2 failed: {}", lib_.ErrorText(rc)));
    }
    initialized_ = true;
    return Status::Ok();
  }

 private:
  const NvmlLibrary& lib_;
  bool initialized_ = false;
};

// The error for a failed query `what` about `gpu` ("GPU 1", "GPU 1 MIG 0").
Status QueryFailed(const NvmlLibrary& lib, std::string_view what, std::string_view gpu,
                   nvmlReturn_t rc) {
  return Internal(fmt::format("NVML: {} of {} failed: {}", what, gpu, lib.ErrorText(rc)));
}

std::vector<uint32_t> CpusOfMask(const std::vector<unsigned long>& mask) {
  constexpr uint32_t kBits = sizeof(unsigned long) * 8;
  std::vector<uint32_t> cpus;
  for (uint32_t word = 0; word < mask.size(); ++word) {
    for (uint32_t bit = 0; bit < kBits; ++bit) {
      if ((mask[word] >> bit) & 1UL) cpus.push_back(word * kBits + bit);
    }
  }
  return cpus;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Walks one NVML session's devices.
class NvmlWalk {
 public:
  NvmlWalk(const NvmlLibrary& lib, const NvmlProviderOptions& options)
      : lib_(lib), options_(options) {}

  Result<std::vector<DiscoveredGpu>> Run() {
    unsigned int count = 0;
    if (nvmlReturn_t rc = lib_.device_get_count(&count); rc != NVML_SUCCESS) {
      return Internal(fmt::format("NVML: nvmlDeviceGetCount_v2 failed: {}", lib_.ErrorText(rc)));
    }
    for (unsigned int i = 0; i < count; ++i) ROTA_RETURN_IF_ERROR(AddGpu(i));
    return std::move(found_);
  }

 private:
  Status AddGpu(unsigned int nvml_index) {
    const std::string label = fmt::format("GPU {}", nvml_index);
    nvmlDevice_t device = nullptr;
    if (nvmlReturn_t rc = lib_.device_get_handle_by_index(nvml_index, &device);
        rc != NVML_SUCCESS) {
      return QueryFailed(lib_, "nvmlDeviceGetHandleByIndex_v2", label, rc);
    }
    DiscoveredGpu gpu;
    auto name = NameOf(device, label);
    if (!name.ok()) return name.status();
    gpu.type = GpuTypeFromProductName(*name);
    if (nvmlReturn_t rc = lib_.device_get_minor_number(device, &gpu.minor); rc != NVML_SUCCESS) {
      return QueryFailed(lib_, "nvmlDeviceGetMinorNumber", label, rc);
    }
    gpu.device_file = fmt::format("/dev/nvidia{}", gpu.minor);
    nvmlPciInfo_t pci{};
    if (nvmlReturn_t rc = lib_.device_get_pci_info(device, &pci); rc != NVML_SUCCESS) {
      return QueryFailed(lib_, "nvmlDeviceGetPciInfo_v3", label, rc);
    }
    gpu.pci_bus_id = std::string(pci.busId, strnlen(pci.busId, sizeof(pci.busId)));
    auto cpus = CpusOf(device, label);
    if (!cpus.ok()) return cpus.status();
    gpu.cpus = std::move(cpus).value();
    gpu.uuid = UuidOf(device);

    auto mig_enabled = MigEnabled(device, label);
    if (!mig_enabled.ok()) return mig_enabled.status();
    if (*mig_enabled) return AddMigInstances(device, gpu, label);
    Add(std::move(gpu));
    return Status::Ok();
  }

  // Each MIG instance of `device` as a GPU of its own; `parent` has the
  // parent's facts. A GPU in MIG mode without instances adds nothing: no job
  // can use it until an administrator creates some.
  Status AddMigInstances(nvmlDevice_t device, const DiscoveredGpu& parent,
                         const std::string& label) {
    unsigned int slots = 0;
    if (nvmlReturn_t rc = lib_.device_get_max_mig_device_count(device, &slots);
        rc != NVML_SUCCESS) {
      return QueryFailed(lib_, "nvmlDeviceGetMaxMigDeviceCount", label, rc);
    }
    for (unsigned int slot = 0; slot < slots; ++slot) {
      const std::string mig_label = fmt::format("{} MIG {}", label, slot);
      nvmlDevice_t mig = nullptr;
      nvmlReturn_t rc = lib_.device_get_mig_device_handle_by_index(device, slot, &mig);
      if (rc == NVML_ERROR_NOT_FOUND) continue;  // An empty slot.
      if (rc != NVML_SUCCESS) {
        return QueryFailed(lib_, "nvmlDeviceGetMigDeviceHandleByIndex", mig_label, rc);
      }
      auto name = NameOf(mig, mig_label);
      if (!name.ok()) return name.status();
      DiscoveredGpu instance = parent;
      instance.type = MigProfileFromName(*name);
      if (instance.type.empty()) instance.type = GpuTypeFromProductName(*name);
      instance.uuid = UuidOf(mig);
      instance.parent_device_file = parent.device_file;
      if (std::optional<std::string> file = AccessFileOf(mig, parent.minor)) {
        instance.device_file = *file;
      }
      Add(std::move(instance));
    }
    return Status::Ok();
  }

  void Add(DiscoveredGpu gpu) {
    gpu.index = static_cast<uint32_t>(found_.size());
    found_.push_back(std::move(gpu));
  }

  Result<std::string> NameOf(nvmlDevice_t device, const std::string& label) {
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (nvmlReturn_t rc = lib_.device_get_name(device, name, sizeof(name)); rc != NVML_SUCCESS) {
      return QueryFailed(lib_, "nvmlDeviceGetName", label, rc);
    }
    return std::string(name, strnlen(name, sizeof(name)));
  }

  std::string UuidOf(nvmlDevice_t device) {
    if (lib_.device_get_uuid == nullptr) return "";
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    if (lib_.device_get_uuid(device, uuid, sizeof(uuid)) != NVML_SUCCESS) return "";
    return std::string(uuid, strnlen(uuid, sizeof(uuid)));
  }

  Result<std::vector<uint32_t>> CpusOf(nvmlDevice_t device, const std::string& label) {
    constexpr uint32_t kBits = sizeof(unsigned long) * 8;
    std::vector<unsigned long> mask((options_.max_cpus + kBits - 1) / kBits, 0);
    nvmlReturn_t rc =
        lib_.device_get_cpu_affinity(device, static_cast<unsigned int>(mask.size()), mask.data());
    if (rc == NVML_ERROR_NOT_SUPPORTED) return std::vector<uint32_t>{};
    if (rc != NVML_SUCCESS) return QueryFailed(lib_, "nvmlDeviceGetCpuAffinity", label, rc);
    return CpusOfMask(mask);
  }

  Result<bool> MigEnabled(nvmlDevice_t device, const std::string& label) {
    if (!lib_.HasMig()) return false;
    unsigned int current = NVML_DEVICE_MIG_DISABLE;
    unsigned int pending = NVML_DEVICE_MIG_DISABLE;
    nvmlReturn_t rc = lib_.device_get_mig_mode(device, &current, &pending);
    if (rc == NVML_ERROR_NOT_SUPPORTED) return false;  // A GPU without MIG.
    if (rc != NVML_SUCCESS) return QueryFailed(lib_, "nvmlDeviceGetMigMode", label, rc);
    return current == NVML_DEVICE_MIG_ENABLE;
  }

  // The instance's own capability file, when the driver lists it.
  std::optional<std::string> AccessFileOf(nvmlDevice_t mig, uint32_t parent_minor) {
    if (lib_.device_get_gpu_instance_id == nullptr ||
        lib_.device_get_compute_instance_id == nullptr) {
      return std::nullopt;
    }
    unsigned int gi = 0;
    unsigned int ci = 0;
    if (lib_.device_get_gpu_instance_id(mig, &gi) != NVML_SUCCESS ||
        lib_.device_get_compute_instance_id(mig, &ci) != NVML_SUCCESS) {
      return std::nullopt;
    }
    if (!mig_minors_) mig_minors_ = ParseMigMinors(ReadWholeFile(options_.mig_minors_path));
    return MigAccessFile(*mig_minors_, parent_minor, gi, ci);
  }

  const NvmlLibrary& lib_;
  const NvmlProviderOptions& options_;
  std::optional<std::map<std::string, uint32_t>> mig_minors_;  // Read when first needed.
  std::vector<DiscoveredGpu> found_;
};

}  // namespace

Result<std::vector<DiscoveredGpu>> NvmlProvider::Discover() {
  auto lib = NvmlLibrary::Load(options_.library_path);
  if (!lib.ok()) return lib.status();
  NvmlSession session(**lib);
  ROTA_RETURN_IF_ERROR(session.Init());
  return NvmlWalk(**lib, options_).Run();
}

}  // namespace rota::noded
