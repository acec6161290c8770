#pragma once

// The environment a batch script starts with: what the submitter exported
// (the job's payload) plus Slurm's job variables, which win over exported
// values of the same name.

#include <cstdint>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::noded {

struct JobEnvironmentInput {
  const wire::JobLaunch* job = nullptr;
  const wire::JobPayload* payload = nullptr;
  std::string cluster_name;
  std::string node_name;  // The node the script runs on.
  // Physical indices of the GPUs the job holds on this node, ascending.
  std::vector<uint32_t> gpu_indices;
  // cgroup.conf ConstrainDevices=yes: the job sees only its GPUs, so CUDA
  // numbers them 0..n-1; otherwise it sees all and needs the physical indices.
  bool devices_constrained = false;
  // The DefMemPerCPU the job's memory came from when it asked for none
  // (DefaultMemPerCpuMb); 0: none applies.
  uint64_t default_mem_per_cpu_mb = 0;
};

// DefMemPerCPU for a job of `partition`: the partition's, else the
// cluster's; 0 when neither is set.
uint64_t DefaultMemPerCpuMb(const conf::ClusterConfig& config, const std::string& partition);

// "NAME=value" entries, the payload's first (in its order), then Slurm's.
// REQUIRES: input.job and input.payload are set.
std::vector<std::string> BuildJobEnvironment(const JobEnvironmentInput& input);

}  // namespace rota::noded
