#pragma once

// Which of a node's GPUs each running job holds. The controller chooses them
// (socket-local to the job's cores) and sends their indices: AllocateExact
// records that choice. Allocate (the lowest-indexed free devices of a type)
// serves launches that name only a count.
//
// A GPU's index is its position among the node's GPUs in gres.conf order (or,
// without gres.conf devices, among the count the NodeName line declares); it
// is what SLURM_JOB_GPUS shows. Thread-safe.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::noded {

struct GpuDevice {
  GpuDevice() = default;
  GpuDevice(uint32_t index_in, std::string type_in, std::string file_in)
      : index(index_in), type(std::move(type_in)), file(std::move(file_in)) {}

  uint32_t index = 0;
  std::string type;  // "" when untyped.
  std::string file;  // Device node ("/dev/nvidia3"); "" for count-only GPUs.
  // What discovery adds (gpu_inventory.h); empty when unknown.
  std::vector<uint32_t> cpus;   // CPU ids close to the GPU (NVML's affinity).
  std::vector<uint32_t> cores;  // gres.conf Cores= of the GPU's line.
  std::string uuid;             // "GPU-…", or "MIG-…" for a MIG instance.
  std::string parent_file;      // A MIG instance's parent device node, needed too.
  // gres.conf MultipleFiles= beyond the first: more files the GPU is reached
  // through (a MIG instance's capabilities); granted and denied with it.
  std::vector<std::string> more_files;
};

class GpuAllocator {
 public:
  explicit GpuAllocator(std::vector<GpuDevice> devices);

  // The GPUs of `node`: gres.conf's gpu lines (a count-only line stands for
  // Count= devices without files); when gres.conf describes none, the count
  // the NodeName line's Gres= declares, without files.
  static std::vector<GpuDevice> InventoryOf(const conf::ClusterConfig& config,
                                            const std::string& node);
  // Of `devices`, those that are there: count-only ones, and those whose file
  // is a device node. The files of the others go to `missing`. Indices stay
  // as they were (a GPU's index is its place in gres.conf).
  static std::vector<GpuDevice> Present(std::vector<GpuDevice> devices,
                                        std::vector<std::string>* missing);

  // Takes `count` free GPUs of `type` ("" matches any type) for `job_id`,
  // lowest index first. Asking again for a job that holds GPUs returns what it
  // holds. Errors: kFailedPrecondition when not enough are free.
  Result<std::vector<GpuDevice>> Allocate(uint32_t job_id, uint32_t count, const std::string& type);
  // Takes exactly the GPUs of `indices` (the controller's choice) for `job_id`.
  // Errors: kFailedPrecondition when one is unknown or held by another job.
  Result<std::vector<GpuDevice>> AllocateExact(uint32_t job_id,
                                               const std::vector<uint32_t>& indices);
  // Frees what `job_id` holds (nothing when it holds none).
  void Release(uint32_t job_id);

  const std::vector<GpuDevice>& devices() const { return devices_; }
  // "gpu:a100:4,gpu:v100:2": what this node has, for registration.
  std::string GresSummary() const;

 private:
  const std::vector<GpuDevice> devices_;
  std::mutex mu_;
  std::map<uint32_t, std::vector<uint32_t>> held_;  // job id -> indices. Guarded by mu_.
  std::vector<bool> busy_;                          // Parallel to devices_. Guarded by mu_.
};

}  // namespace rota::noded
