#include "noded/gpu/discovery/nvml_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace rota::noded {
namespace {

std::string LastDlError() {
  const char* text = dlerror();
  return text != nullptr ? text : "no reason given";
}

// Resolves `symbol` into `fn`. Returns false when the library lacks it.
template <typename Fn>
bool Resolve(void* handle, const char* symbol, Fn& fn) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) return false;
  fn = reinterpret_cast<Fn>(address);
  return true;
}

}  // namespace

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& path) {
  // RTLD_LOCAL: NVML's symbols must not satisfy anything else's lookups.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return NotFound(fmt::format("NVML: {} not found or not loadable (AutoDetect=nvml): {}", path,
                                LastDlError()));
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary(handle));
  const char* missing = nullptr;  // The first required symbol not found.
  auto require = [&](const char* symbol, auto& fn) {
    if (!Resolve(handle, symbol, fn) && missing == nullptr) missing = symbol;
  };
  require("nvmlInit_v2", lib->init);
  require("nvmlShutdown", lib->shutdown);
  require("nvmlDeviceGetCount_v2", lib->device_get_count);
  require("nvmlDeviceGetHandleByIndex_v2", lib->device_get_handle_by_index);
  require("nvmlDeviceGetName", lib->device_get_name);
  require("nvmlDeviceGetMinorNumber", lib->device_get_minor_number);
  require("nvmlDeviceGetPciInfo_v3", lib->device_get_pci_info);
  require("nvmlDeviceGetCpuAffinity", lib->device_get_cpu_affinity);
  if (missing != nullptr) {
    // Returning drops `lib`, which unloads the library.
    return FailedPrecondition(
        fmt::format("NVML: {} has no symbol {} (a driver too old?)", path, missing));
  }
  Resolve(handle, "nvmlErrorString", lib->error_string);
  Resolve(handle, "nvmlDeviceGetUUID", lib->device_get_uuid);
  Resolve(handle, "nvmlDeviceGetMigMode", lib->device_get_mig_mode);
  Resolve(handle, "nvmlDeviceGetMaxMigDeviceCount", lib->device_get_max_mig_device_count);
  Resolve(handle, "nvmlDeviceGetMigDeviceHandleByIndex",
          lib->device_get_mig_device_handle_by_index);
  Resolve(handle, "nvmlDeviceGetGpuInstanceId", lib->device_get_gpu_instance_id);
  Resolve(handle, "nvmlDeviceGetComputeInstanceId", lib->device_get_compute_instance_id);
  Resolve(handle, "nvmlDeviceGetUtilizationRates", lib->device_get_utilization_rates);
  Resolve(handle, "nvmlDeviceGetMemoryInfo", lib->device_get_memory_info);
  Resolve(handle, "nvmlDeviceGetPowerUsage", lib->device_get_power_usage);
  Resolve(handle, "nvmlDeviceGetTemperature", lib->device_get_temperature);
  Resolve(handle, "nvmlDeviceGetComputeRunningProcesses_v3",
          lib->device_get_compute_running_processes);
  // nvmlEnableState_t is a C enum, an unsigned int here.
  Resolve(handle, "nvmlDeviceGetRetiredPagesPendingStatus",
          lib->device_get_retired_pages_pending_status);
  Resolve(handle, "nvmlEventSetCreate", lib->event_set_create);
  Resolve(handle, "nvmlDeviceRegisterEvents", lib->device_register_events);
  Resolve(handle, "nvmlEventSetWait_v2", lib->event_set_wait);
  Resolve(handle, "nvmlEventSetFree", lib->event_set_free);
  return lib;
}

NvmlLibrary::~NvmlLibrary() { dlclose(handle_); }

std::string NvmlLibrary::ErrorText(nvmlReturn_t code) const {
  const char* text = error_string != nullptr ? error_string(code) : nullptr;
  if (text != nullptr) return fmt::format("{} (NVML error {})", text, code);
  return fmt::format("NVML error {}", code);
}

}  // namespace rota::noded
