#include "ctld/core/job_defaults.h"

#include <algorithm>

#include "common/strings.h"

namespace rota::ctld {
namespace {

// A partition's value when it sets one, else the cluster's; 0 is unset.
template <typename T>
T Chosen(const std::optional<T>& partition, const std::optional<T>& cluster) {
  if (partition.value_or(0) > 0) return *partition;
  return cluster.value_or(0);
}

bool GresAsksForGpus(const std::string& gres) {
  for (std::string_view item : Split(gres, ',')) {
    std::string_view name = item.substr(0, item.find(':'));
    if (EqualsIgnoreCase(name, "gpu")) return true;
  }
  return false;
}

}  // namespace

bool AsksForGpus(const wire::JobSpec& spec) {
  return GresAsksForGpus(spec.gres()) || !spec.gpus().empty() || !spec.gpus_per_node().empty() ||
         !spec.gpus_per_task().empty() || !spec.gpus_per_socket().empty() ||
         spec.ntasks_per_gpu() > 0;
}

GpuDefaults GpuDefaultsFor(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                           const conf::ClusterConfig& config) {
  GpuDefaults d;
  if (!AsksForGpus(spec)) return d;
  const conf::SlurmConf& c = config.settings;
  if (spec.cpus_per_task() == 0 && spec.cpus_per_gpu() == 0) {
    d.cpus_per_gpu = Chosen(partition.def_cpu_per_gpu, c.def_cpu_per_gpu);
  }
  const bool memory_asked = spec.mem_given() || spec.mem_per_node_mb() > 0 ||
                            spec.mem_per_cpu_mb() > 0 || spec.mem_per_gpu_mb() > 0;
  // A partition's own DefMemPerCPU is nearer to the job than the cluster's
  // DefMemPerGPU.
  const bool partition_per_cpu =
      partition.def_mem_per_cpu.value_or(0) > 0 && partition.def_mem_per_gpu.value_or(0) == 0;
  if (!memory_asked && !partition_per_cpu) {
    d.mem_per_gpu = Chosen(partition.def_mem_per_gpu, c.def_mem_per_gpu);
  }
  return d;
}

void ApplyMaxMemPerCpu(const conf::PartitionConfig& partition, const conf::ClusterConfig& config,
                       wire::JobSpec& spec) {
  const MemoryMb max_per_cpu = Chosen(partition.max_mem_per_cpu, config.settings.max_mem_per_cpu);
  if (max_per_cpu > 0 && spec.mem_per_cpu_mb() > max_per_cpu) {
    // Slurm's trade: the same memory per task over more CPUs, each within
    // the limit.
    const uint64_t factor = (spec.mem_per_cpu_mb() + max_per_cpu - 1) / max_per_cpu;
    spec.set_cpus_per_task(
        static_cast<uint32_t>(std::max<uint64_t>(spec.cpus_per_task(), 1) * factor));
    spec.set_mem_per_cpu_mb((spec.mem_per_cpu_mb() + factor - 1) / factor);
  }
}

Status EnforcePartitionLimits(const conf::ClusterConfig& config,
                              const std::string& partition_reason) {
  if (partition_reason.empty() || EqualsIgnoreCase(config.settings.enforce_part_limits, "NO")) {
    return Status::Ok();
  }
  if (partition_reason == "PartitionTimeLimit") {
    return InvalidArgument("Requested time limit is invalid (missing or exceeds some limit)");
  }
  // PartitionNodeLimit, PartitionConfig: more nodes than the partition allows or has.
  return InvalidArgument("Node count specification invalid");
}

}  // namespace rota::ctld
