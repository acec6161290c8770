#pragma once

// Which device files ConstrainDevices keeps from a job. As under Slurm, a job
// may open every device of its node except the GRES device files it was not
// given: the driver's shared files (nvidiactl, nvidia-uvm, nvidia-modeset,
// the MIG config capabilities), InfiniBand's uverbs and rdma_cm, fuse, AMD's
// kfd and dri stay open, since CUDA, NCCL and container runtimes need them.
// A default-deny cage would refuse them and CUDA would not even initialise.

#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "noded/cage/cgroup_backend.h"
#include "noded/gpu/gpu_allocator.h"

namespace rota::noded {

// Every GRES device file of the host that node `node` runs on: gres.conf's
// File= and MultipleFiles= of every GRES line (gpu, mps, shard, nic, a site's own) of `node` and
// of the other nodes slurm.conf places at the same address (virtual nodes
// sharing one host, whose GPUs are no less forbidden), and the files of the
// GPUs discovery found (`inventory`: /dev/nvidiaN, a MIG instance's access
// file and its parent's). Sorted, without repeats.
std::vector<std::string> HostGresFiles(const conf::ClusterConfig& config, const std::string& node,
                                       const std::vector<GpuDevice>& inventory);

// The files that holding `gpus` lets a job open: each GPU's own, for a MIG
// instance its parent GPU's, and gres.conf's MultipleFiles= of each.
std::vector<std::string> GrantedFiles(const std::vector<GpuDevice>& gpus);

// The rules that deny the devices of `gres_files` except those of `granted`.
// Compared by device number, not path, so that another path to a granted
// device does not deny it. Files that are missing or not device nodes are
// left out: there is nothing to open. Sorted, without repeats.
std::vector<DeviceRule> DeniedDeviceRules(const std::vector<std::string>& gres_files,
                                          const std::vector<std::string>& granted);

// What a job (or task) holding `gpus` on node `node` may not open: the rules
// of DeniedDeviceRules over the host's GRES files.
std::vector<DeviceRule> DeniedDevicesFor(const conf::ClusterConfig& config, const std::string& node,
                                         const std::vector<GpuDevice>& inventory,
                                         const std::vector<GpuDevice>& gpus);

}  // namespace rota::noded
