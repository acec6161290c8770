#pragma once

// What a node's GPUs are doing now: utilisation, memory, power, the processes
// on them, and health events. Read every JobAcctGatherFrequency task= seconds
// by rotad (gpu/gpu_watch.h) to measure jobs' GPU use and to drain a node
// whose GPU fails. One implementation per source, as for discovery: NVML
// (nvml_sampler.h) and scripted readings for tests (fake_gpu_sampler.h).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

// Health events, as a DCGM health check would report them.
enum class GpuEventKind {
  kXid,                  // An XID error the driver logged (`code` is the XID)
  kDoubleBitEcc,         // An uncorrectable ECC error
  kFallenOffBus,         // The GPU no longer answers (NVML's GPU_IS_LOST)
  kRetiredPagesPending,  // Pages wait for retirement: the GPU needs a reset
};

struct GpuEvent {
  GpuEventKind kind = GpuEventKind::kXid;
  uint64_t code = 0;  // The XID of kXid; 0 otherwise.
  bool operator==(const GpuEvent&) const = default;
};

// Words for logs and drain reasons: "XID 79", "uncorrectable ECC error".
std::string GpuEventText(const GpuEvent& event);

// One GPU's figures at one moment. A figure the source could not read is 0.
struct GpuReading {
  std::string device_file;  // Which GPU: its device file, as discovery named it.
  uint32_t util_pct = 0;    // SM utilisation over the driver's last period (%)
  uint64_t mem_used_bytes = 0;
  uint64_t mem_total_bytes = 0;
  uint32_t power_mw = 0;
  uint32_t temperature_c = 0;
  std::vector<pid_t> pids;       // Compute processes on the GPU
  std::vector<GpuEvent> events;  // Events since the previous reading
  bool operator==(const GpuReading&) const = default;
};

class GpuSampler {
 public:
  virtual ~GpuSampler() = default;
  // What the source is, for logs.
  virtual std::string Name() const = 0;
  // A reading of every GPU the source knows (MIG instances are read as their
  // parent GPU). An error says the source could not be read at all.
  virtual Result<std::vector<GpuReading>> Sample() = 0;
};

}  // namespace rota::noded
