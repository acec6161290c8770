#pragma once

// libnvidia-ml loaded with dlopen, its entry points resolved once. Never
// linked: a host without NVIDIA's driver builds and runs Rota all the same.

#include <memory>
#include <string>

#include "common/status.h"
#include "noded/gpu/discovery/nvml_api.h"

namespace rota::noded {

// The library's soname, as the driver package installs it.
inline constexpr char kNvmlLibraryName[] = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  // Loads `path` (a soname for the loader's search, or a file) and resolves
  // every required entry point. Errors name the library and what was
  // missing, with dlerror's text; nothing is left loaded.
  static Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& path);
  ~NvmlLibrary();  // Unloads the library.
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // "NVML_ERROR_…"-like text for `code`: the library's own words when it has
  // nvmlErrorString, else the number.
  std::string ErrorText(nvmlReturn_t code) const;

  // Required entry points: Load fails without any of them.
  NvmlInitFn init = nullptr;
  NvmlShutdownFn shutdown = nullptr;
  NvmlDeviceGetCountFn device_get_count = nullptr;
  NvmlDeviceGetHandleByIndexFn device_get_handle_by_index = nullptr;
  NvmlDeviceGetNameFn device_get_name = nullptr;
  NvmlDeviceGetMinorNumberFn device_get_minor_number = nullptr;
  NvmlDeviceGetPciInfoFn device_get_pci_info = nullptr;
  NvmlDeviceGetCpuAffinityFn device_get_cpu_affinity = nullptr;
  // Optional ones: null when the library lacks them (an old driver has no
  // MIG; then no GPU is in MIG mode).
  NvmlErrorStringFn error_string = nullptr;
  NvmlDeviceGetUuidFn device_get_uuid = nullptr;
  NvmlDeviceGetMigModeFn device_get_mig_mode = nullptr;
  NvmlDeviceGetMaxMigDeviceCountFn device_get_max_mig_device_count = nullptr;
  NvmlDeviceGetMigDeviceHandleByIndexFn device_get_mig_device_handle_by_index = nullptr;
  NvmlDeviceGetInstanceIdFn device_get_gpu_instance_id = nullptr;
  NvmlDeviceGetInstanceIdFn device_get_compute_instance_id = nullptr;

  // Sampling (nvml_sampler.h); each may be missing on old drivers or
  // unsupported boards, and a figure it would give reads 0.
  NvmlDeviceGetUtilizationRatesFn device_get_utilization_rates = nullptr;
  NvmlDeviceGetMemoryInfoFn device_get_memory_info = nullptr;
  NvmlDeviceGetUintFn device_get_power_usage = nullptr;  // mW
  NvmlDeviceGetTemperatureFn device_get_temperature = nullptr;
  NvmlDeviceGetProcessesFn device_get_compute_running_processes = nullptr;
  NvmlDeviceGetUintFn device_get_retired_pages_pending_status = nullptr;
  NvmlEventSetCreateFn event_set_create = nullptr;
  NvmlDeviceRegisterEventsFn device_register_events = nullptr;
  NvmlEventSetWaitFn event_set_wait = nullptr;
  NvmlEventSetFreeFn event_set_free = nullptr;

  bool HasEvents() const {
    return event_set_create != nullptr && device_register_events != nullptr &&
           event_set_wait != nullptr && event_set_free != nullptr;
  }

  bool HasMig() const {
    return device_get_mig_mode != nullptr && device_get_max_mig_device_count != nullptr &&
           device_get_mig_device_handle_by_index != nullptr;
  }

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}
  void* handle_;  // From dlopen; owned.
};

}  // namespace rota::noded
