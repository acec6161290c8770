#include "noded/gpu/discovery/nvml_sampler.h"

#include <fmt/format.h>

#include <algorithm>

namespace rota::noded {
namespace {

// A process list longer than this is cut (a GPU rarely has more).
constexpr unsigned int kMaxProcesses = 256;

}  // namespace

NvmlSampler::~NvmlSampler() {
  if (events_ != nullptr) lib_->event_set_free(events_);
  if (session_) lib_->shutdown();
}

Status NvmlSampler::Open() {
  if (lib_ == nullptr) {
    Result<std::unique_ptr<NvmlLibrary>> lib = NvmlLibrary::Load(library_path_);
    if (!lib.ok()) return lib.status();
    lib_ = std::move(lib).value();
  }
  if (!session_) {
    if (nvmlReturn_t rc = lib_->init(); rc != NVML_SUCCESS) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("NVML: nvmlInit_v2 failed: {}", lib_->ErrorText(rc)));
    }
    session_ = true;
  }
  unsigned int count = 0;
  if (nvmlReturn_t rc = lib_->device_get_count(&count); rc != NVML_SUCCESS) {
    return Internal(fmt::format("NVML: nvmlDeviceGetCount_v2 failed: {}", lib_->ErrorText(rc)));
  }
  devices_.clear();
  files_.clear();
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    unsigned int minor = 0;
    if (lib_->device_get_handle_by_index(i, &device) != NVML_SUCCESS ||
        lib_->device_get_minor_number(device, &minor) != NVML_SUCCESS) {
      continue;  // Read as lost below only once it was known; skip a GPU never seen.
    }
    devices_.push_back(device);
    files_.push_back(fmt::format("/dev/nvidia{}", minor));
  }
  if (lib_->HasEvents() && events_ == nullptr && lib_->event_set_create(&events_) == NVML_SUCCESS) {
    for (nvmlDevice_t device : devices_) {
      // A board without ECC refuses that type; XIDs alone are still wanted.
      if (lib_->device_register_events(
              device, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, events_) !=
          NVML_SUCCESS) {
        lib_->device_register_events(device, nvmlEventTypeXidCriticalError, events_);
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<GpuReading>> NvmlSampler::Sample() {
  if (!session_ || devices_.empty()) ROTA_RETURN_IF_ERROR(Open());
  std::vector<GpuReading> out;
  out.reserve(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) {
    nvmlDevice_t device = devices_[i];
    GpuReading r;
    r.device_file = files_[i];
    bool lost = false;
    auto ok = [&](nvmlReturn_t rc) {
      if (rc == NVML_ERROR_GPU_IS_LOST) lost = true;
      return rc == NVML_SUCCESS;
    };
    if (lib_->device_get_utilization_rates != nullptr) {
      nvmlUtilization_t u{};
      if (ok(lib_->device_get_utilization_rates(device, &u))) r.util_pct = std::min(u.gpu, 100u);
    }
    if (lib_->device_get_memory_info != nullptr) {
      nvmlMemory_t m{};
      if (ok(lib_->device_get_memory_info(device, &m))) {
        r.mem_used_bytes = m.used;
        r.mem_total_bytes = m.total;
      }
    }
    if (lib_->device_get_power_usage != nullptr)
      ok(lib_->device_get_power_usage(device, &r.power_mw));
    if (lib_->device_get_temperature != nullptr) {
      ok(lib_->device_get_temperature(device, NVML_TEMPERATURE_GPU, &r.temperature_c));
    }
    if (lib_->device_get_compute_running_processes != nullptr) {
      std::vector<nvmlProcessInfo_t> infos(kMaxProcesses);
      unsigned int n = kMaxProcesses;
      if (ok(lib_->device_get_compute_running_processes(device, &n, infos.data()))) {
        for (unsigned int p = 0; p < std::min(n, kMaxProcesses); ++p) {
          r.pids.push_back(static_cast<pid_t>(infos[p].pid));
        }
      }
    }
    if (lib_->device_get_retired_pages_pending_status != nullptr) {
      unsigned int pending = 0;
      if (ok(lib_->device_get_retired_pages_pending_status(device, &pending)) &&
          pending == NVML_FEATURE_ENABLED) {
        r.events.push_back({GpuEventKind::kRetiredPagesPending, 0});
      }
    }
    if (lost) r.events.push_back({GpuEventKind::kFallenOffBus, 0});
    out.push_back(std::move(r));
  }
  ReadEvents(out);
  return out;
}

void NvmlSampler::ReadEvents(std::vector<GpuReading>& readings) {
  if (events_ == nullptr) return;
  // Drains what arrived since the last sample without waiting.
  for (int guard = 0; guard < 1024; ++guard) {
    nvmlEventData_t data{};
    if (lib_->event_set_wait(events_, &data, 0) != NVML_SUCCESS) return;
    auto it = std::find(devices_.begin(), devices_.end(), data.device);
    if (it == devices_.end()) continue;
    GpuReading& r = readings[static_cast<size_t>(it - devices_.begin())];
    if (data.eventType == nvmlEventTypeXidCriticalError) {
      r.events.push_back({GpuEventKind::kXid, data.eventData});
    } else if (data.eventType == nvmlEventTypeDoubleBitEccError) {
      r.events.push_back({GpuEventKind::kDoubleBitEcc, 0});
    }
  }
}

}  // namespace rota::noded
