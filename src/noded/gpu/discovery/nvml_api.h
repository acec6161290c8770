#pragma once

// The few NVML types, constants and function signatures Rota uses, declared
// here so that building needs neither a GPU nor NVIDIA's headers: the library
// is loaded with dlopen at run time (nvml_library.h).
//
// They follow NVML API version 12 (nvml.h as shipped with CUDA 12.x and
// drivers R525 and later); every one of them is also in earlier versions
// back to the first with MIG (CUDA 11.0, R450). The versioned entry points
// (nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
// nvmlDeviceGetPciInfo_v3) are the ones nvml.h maps the plain names to.
// Only what is listed here may be relied upon: the struct layouts must match
// the library's byte for byte.

#include <cstdint>

extern "C" {

// nvmlReturn_t is a C enum: an int on every ABI Rota builds for.
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// An opaque handle owned by the library.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

// Buffer sizes the API documents as large enough.
inline constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;

// nvmlDeviceGetMigMode's current mode.
inline constexpr unsigned int NVML_DEVICE_MIG_DISABLE = 0;
inline constexpr unsigned int NVML_DEVICE_MIG_ENABLE = 1;

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:07:00.0"
};

// Sampling (gpu_sampler.h): nvmlUtilization_t, nvmlMemory_t, the process
// list's entries (nvmlProcessInfo_v2_t, which _v3 of the running-process
// call fills) and an event set's data, as nvml.h lays them out.
struct nvmlUtilization_t {
  unsigned int gpu;     // SM utilisation over the last sample period (%)
  unsigned int memory;  // Memory controller utilisation (%)
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // The XID of an XID event
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long nvmlEventTypeDoubleBitEccError = 0x2ULL;
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8ULL;
inline constexpr unsigned int NVML_TEMPERATURE_GPU = 0;
inline constexpr unsigned int NVML_FEATURE_ENABLED = 1;  // nvmlEnableState_t

using NvmlInitFn = nvmlReturn_t (*)();
using NvmlShutdownFn = nvmlReturn_t (*)();
using NvmlErrorStringFn = const char* (*)(nvmlReturn_t);
using NvmlDeviceGetCountFn = nvmlReturn_t (*)(unsigned int* count);
using NvmlDeviceGetHandleByIndexFn = nvmlReturn_t (*)(unsigned int index, nvmlDevice_t* device);
using NvmlDeviceGetNameFn = nvmlReturn_t (*)(nvmlDevice_t device, char* name, unsigned int length);
using NvmlDeviceGetUuidFn = nvmlReturn_t (*)(nvmlDevice_t device, char* uuid, unsigned int length);
using NvmlDeviceGetMinorNumberFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* minor);
using NvmlDeviceGetPciInfoFn = nvmlReturn_t (*)(nvmlDevice_t device, nvmlPciInfo_t* pci);
// cpu_set: cpu_set_size words of a bit mask, CPU n at bit n % 64 of word n / 64.
using NvmlDeviceGetCpuAffinityFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int cpu_set_size,
                                                    unsigned long* cpu_set);
using NvmlDeviceGetMigModeFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* current_mode,
                                                unsigned int* pending_mode);
using NvmlDeviceGetMaxMigDeviceCountFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* count);
using NvmlDeviceGetMigDeviceHandleByIndexFn = nvmlReturn_t (*)(nvmlDevice_t device,
                                                               unsigned int index,
                                                               nvmlDevice_t* mig_device);
using NvmlDeviceGetInstanceIdFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* id);
using NvmlDeviceGetUtilizationRatesFn = nvmlReturn_t (*)(nvmlDevice_t device,
                                                         nvmlUtilization_t* utilization);
using NvmlDeviceGetMemoryInfoFn = nvmlReturn_t (*)(nvmlDevice_t device, nvmlMemory_t* memory);
using NvmlDeviceGetUintFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* value);
using NvmlDeviceGetTemperatureFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int sensor,
                                                    unsigned int* celsius);
using NvmlDeviceGetProcessesFn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* count,
                                                  nvmlProcessInfo_t* infos);
using NvmlEventSetCreateFn = nvmlReturn_t (*)(nvmlEventSet_t* set);
using NvmlDeviceRegisterEventsFn = nvmlReturn_t (*)(nvmlDevice_t device,
                                                    unsigned long long event_types,
                                                    nvmlEventSet_t set);
using NvmlEventSetWaitFn = nvmlReturn_t (*)(nvmlEventSet_t set, nvmlEventData_t* data,
                                            unsigned int timeout_ms);
using NvmlEventSetFreeFn = nvmlReturn_t (*)(nvmlEventSet_t set);

}  // extern "C"
