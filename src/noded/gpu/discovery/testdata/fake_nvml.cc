// A stand-in for libnvidia-ml.so.1, built only for tests, so that
// NvmlProvider's dlopen path runs end to end on hosts without a GPU.
//
// The host it pretends to be has two "NVIDIA A100-SXM4-80GB":
//   GPU 0: minor 0, PCI 00000000:07:00.0, CPUs 0-3 and 64 (to cross a mask word)
//   GPU 1: minor 1, PCI 00000000:0B:00.0, CPUs 4-7, in MIG mode with two
//          "1g.10gb" instances in slots 0 and 2 (slot 1 empty) of 7:
//          GPU instance 1 / compute instance 0 and GPU instance 2 / compute 0.
// Variants, by compile definition:
//   FAKE_NVML_INIT_FAILS        nvmlInit_v2 answers "driver not loaded"
//   FAKE_NVML_WITHOUT_AFFINITY  nvmlDeviceGetCpuAffinity is not exported
// FakeNvmlOpenSessions() tells a test how many nvmlInit_v2 calls still lack
// their nvmlShutdown. Sampling figures (GPU i: utilisation 10+40i %, memory
// 1+i GiB used of 80 GiB, power 100+100i W, 30+i °C, process 1000+i) are
// fixed; a test changes them through FakeNvmlSetUtilization, queues events
// with FakeNvmlQueueXid and loses a GPU with FakeNvmlLoseGpu.

#include <cstring>

#include "noded/gpu/discovery/nvml_api.h"

struct nvmlDevice_st {
  const char* name;
  const char* uuid;
  unsigned int minor;
  const char* bus_id;
  unsigned int bus;
  unsigned long mask[2];  // CPU affinity, two 64-bit words.
  bool mig_mode;
  nvmlDevice_st* mig[7];  // MIG slots; null when empty.
  unsigned int gpu_instance;
  unsigned int compute_instance;
};

namespace {

nvmlDevice_st mig_a = {"NVIDIA A100-SXM4-80GB MIG 1g.10gb",
                       "MIG-11111111-2222-3333-4444-555555555555",
                       1,
                       "",
                       0,
                       {0, 0},
                       false,
                       {},
                       1,
                       0};
nvmlDevice_st mig_b = {"NVIDIA A100-SXM4-80GB MIG 1g.10gb",
                       "MIG-66666666-7777-8888-9999-000000000000",
                       1,
                       "",
                       0,
                       {0, 0},
                       false,
                       {},
                       2,
                       0};
nvmlDevice_st gpus[2] = {
    {"NVIDIA A100-SXM4-80GB",
     "GPU-aaaaaaaa-0000-0000-0000-000000000000",
     0,
     "00000000:07:00.0",
     0x07,
     {0xFUL, 0x1UL},
     false,
     {},
     0,
     0},
    {"NVIDIA A100-SXM4-80GB",
     "GPU-bbbbbbbb-0000-0000-0000-000000000001",
     1,
     "00000000:0B:00.0",
     0x0B,
     {0xF0UL, 0},
     true,
     {&mig_a, nullptr, &mig_b},
     0,
     0},
};

int open_sessions = 0;

// Sampling state, per top-level GPU.
unsigned int utilization[2] = {10, 50};
bool lost[2] = {false, false};
struct QueuedEvent {
  int gpu;
  unsigned long long xid;
};
QueuedEvent queued[16];
int queued_count = 0;
int event_sets = 0;  // Created and not yet freed
nvmlEventSet_t kEventSet = reinterpret_cast<nvmlEventSet_t>(0x5e7);

int IndexOf(nvmlDevice_t device) {
  for (int i = 0; i < 2; ++i) {
    if (device == &gpus[i]) return i;
  }
  return -1;
}

nvmlReturn_t CopyString(const char* from, char* to, unsigned int length) {
  if (to == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (std::strlen(from) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::strcpy(to, from);
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int FakeNvmlOpenSessions() { return open_sessions; }

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
#ifdef FAKE_NVML_INIT_FAILS
  return NVML_ERROR_DRIVER_NOT_LOADED;
#else
  ++open_sessions;
  return NVML_SUCCESS;
#endif
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  if (open_sessions == 0) return NVML_ERROR_UNINITIALIZED;
  --open_sessions;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (open_sessions == 0) return NVML_ERROR_UNINITIALIZED;
  *count = 2;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(
    unsigned int index, nvmlDevice_t* device) {
  if (open_sessions == 0) return NVML_ERROR_UNINITIALIZED;
  if (index >= 2) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &gpus[index];
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device,
                                                                      char* name,
                                                                      unsigned int length) {
  return CopyString(device->name, name, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device,
                                                                      char* uuid,
                                                                      unsigned int length) {
  return CopyString(device->uuid, uuid, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
                                                                             unsigned int* minor) {
  *minor = device->minor;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device,
                                                                            nvmlPciInfo_t* pci) {
  std::memset(pci, 0, sizeof(*pci));
  std::strncpy(pci->busId, device->bus_id, sizeof(pci->busId) - 1);
  pci->bus = device->bus;
  pci->pciDeviceId = 0x20B210DE;  // A100-SXM4-80GB's device and vendor id.
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_WITHOUT_AFFINITY
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCpuAffinity(
    nvmlDevice_t device, unsigned int cpu_set_size, unsigned long* cpu_set) {
  for (unsigned int i = 0; i < cpu_set_size; ++i) cpu_set[i] = i < 2 ? device->mask[i] : 0;
  return NVML_SUCCESS;
}
#endif

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigMode(
    nvmlDevice_t device, unsigned int* current_mode, unsigned int* pending_mode) {
  if (device->minor == 0) return NVML_ERROR_NOT_SUPPORTED;  // As a board without MIG would.
  *current_mode = device->mig_mode ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  *pending_mode = *current_mode;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(
    nvmlDevice_t device, unsigned int* count) {
  *count = device->mig_mode ? 7 : 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(
    nvmlDevice_t device, unsigned int index, nvmlDevice_t* mig_device) {
  if (index >= 7) return NVML_ERROR_INVALID_ARGUMENT;
  if (device->mig[index] == nullptr) return NVML_ERROR_NOT_FOUND;
  *mig_device = device->mig[index];
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device,
                                                                               unsigned int* id) {
  *id = device->gpu_instance;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeInstanceId(
    nvmlDevice_t device, unsigned int* id) {
  *id = device->compute_instance;
  return NVML_SUCCESS;
}

// Sampling.
#define FAKE_NVML_SAMPLED_GPU(device)         \
  const int i = IndexOf(device);              \
  if (i < 0) return NVML_ERROR_NOT_SUPPORTED; \
  if (lost[i]) return NVML_ERROR_GPU_IS_LOST

__attribute__((visibility("default"))) void FakeNvmlSetUtilization(int gpu, unsigned int pct) {
  utilization[gpu] = pct;
}
__attribute__((visibility("default"))) void FakeNvmlQueueXid(int gpu, unsigned long long xid) {
  if (queued_count < 16) queued[queued_count++] = {gpu, xid};
}
__attribute__((visibility("default"))) void FakeNvmlLoseGpu(int gpu) { lost[gpu] = true; }
__attribute__((visibility("default"))) int FakeNvmlOpenEventSets() { return event_sets; }

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(
    nvmlDevice_t device, nvmlUtilization_t* u) {
  FAKE_NVML_SAMPLED_GPU(device);
  u->gpu = utilization[i];
  u->memory = utilization[i] / 2;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                                                            nvmlMemory_t* m) {
  FAKE_NVML_SAMPLED_GPU(device);
  m->total = 80ULL << 30;
  m->used = static_cast<unsigned long long>(1 + i) << 30;
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device,
                                                                            unsigned int* mw) {
  FAKE_NVML_SAMPLED_GPU(device);
  *mw = 100000u + 100000u * static_cast<unsigned int>(i);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                                             unsigned int sensor,
                                                                             unsigned int* c) {
  FAKE_NVML_SAMPLED_GPU(device);
  if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *c = 30u + static_cast<unsigned int>(i);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(
    nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_t* infos) {
  FAKE_NVML_SAMPLED_GPU(device);
  if (*count < 1) {
    *count = 1;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = 1;
  infos[0] = {1000u + static_cast<unsigned int>(i), 1ULL << 30, 0, 0};
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(
    nvmlDevice_t device, unsigned int* pending) {
  FAKE_NVML_SAMPLED_GPU(device);
  *pending = 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  ++event_sets;
  *set = kEventSet;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceRegisterEvents(
    nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set) {
  if (set != kEventSet || IndexOf(device) < 0) return NVML_ERROR_INVALID_ARGUMENT;
  // As a board without ECC: only XIDs may be asked for.
  if ((types & nvmlEventTypeDoubleBitEccError) != 0) return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set,
                                                                        nvmlEventData_t* data,
                                                                        unsigned int) {
  if (set != kEventSet) return NVML_ERROR_INVALID_ARGUMENT;
  if (queued_count == 0) return NVML_ERROR_TIMEOUT;
  const QueuedEvent e = queued[0];
  for (int k = 1; k < queued_count; ++k) queued[k - 1] = queued[k];
  --queued_count;
  *data = {};
  data->device = &gpus[e.gpu];
  data->eventType = nvmlEventTypeXidCriticalError;
  data->eventData = e.xid;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  if (set != kEventSet) return NVML_ERROR_INVALID_ARGUMENT;
  --event_sets;
  return NVML_SUCCESS;
}

}  // extern "C"
