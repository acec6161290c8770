#include "noded/job_environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/hostlist.h"
#include "common/strings.h"
#include "model/job_variables.h"

namespace rota::noded {
namespace {

// An environment that keeps the order entries were first set in, so the job
// sees the submitter's variables as exported, and a later Set replaces.
class EnvironmentBuilder {
 public:
  void SetEntry(const std::string& entry) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) return;  // Not NAME=value: nothing a shell can use.
    Set(entry.substr(0, eq), entry.substr(eq + 1));
  }
  void Set(const std::string& name, const std::string& value) {
    auto [it, added] = index_.emplace(name, entries_.size());
    if (added) {
      entries_.push_back(name + "=" + value);
    } else {
      entries_[it->second] = name + "=" + value;
    }
  }
  std::vector<std::string> Take() { return std::move(entries_); }

 private:
  std::vector<std::string> entries_;
  std::map<std::string, size_t> index_;
};

std::string JoinNumbers(const std::vector<uint32_t>& numbers) {
  std::string out;
  for (uint32_t n : numbers) {
    if (!out.empty()) out += ",";
    out += std::to_string(n);
  }
  return out;
}

}  // namespace

uint64_t DefaultMemPerCpuMb(const conf::ClusterConfig& config, const std::string& partition) {
  const conf::PartitionConfig* p = config.FindPartition(partition);
  if (p != nullptr && p->def_mem_per_cpu) return *p->def_mem_per_cpu;
  return config.settings.def_mem_per_cpu.value_or(0);
}

std::vector<std::string> BuildJobEnvironment(const JobEnvironmentInput& input) {
  const wire::JobLaunch& job = *input.job;
  const wire::JobSpec& spec = job.spec();
  EnvironmentBuilder env;
  // Records from before payloads existed carry the environment in the spec.
  const auto& exported =
      input.payload->environment().empty() ? spec.environment() : input.payload->environment();
  for (const std::string& entry : exported) env.SetEntry(entry);

  const std::string id = std::to_string(job.job_id());
  const std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  const std::string nodelist = CompressHostlist(nodes);
  const std::string num_nodes = std::to_string(nodes.size());
  // This node's CPUs (the batch script's, on the first node).
  uint32_t cpus = job.cpus_per_node() != 0 ? job.cpus_per_node() : job.alloc_cpus();
  for (int i = 0; i < job.allocs_size() && job.allocs_size() == job.nodes_size(); ++i) {
    if (job.nodes(i) == input.node_name) cpus = job.allocs(i).cpus();
  }

  env.Set("ENVIRONMENT", "BATCH");
  env.Set("SLURM_JOB_ID", id);
  env.Set("SLURM_JOBID", id);
  env.Set("SLURM_JOB_NAME", spec.name());
  env.Set("SLURM_JOB_USER", spec.user());
  env.Set("SLURM_JOB_UID", std::to_string(spec.uid()));
  env.Set("SLURM_JOB_GID", std::to_string(spec.gid()));
  env.Set("SLURM_JOB_PARTITION", spec.partition());
  if (!spec.account().empty()) env.Set("SLURM_JOB_ACCOUNT", spec.account());
  if (!spec.qos().empty()) env.Set("SLURM_JOB_QOS", spec.qos());
  env.Set("SLURM_JOB_NODELIST", nodelist);
  env.Set("SLURM_NODELIST", nodelist);
  env.Set("SLURM_JOB_NUM_NODES", num_nodes);
  env.Set("SLURM_NNODES", num_nodes);
  env.Set("SLURM_CPUS_ON_NODE", std::to_string(cpus));
  for (auto& [name, value] : model::LayoutVariables(job)) env.Set(name, value);
  env.Set("SLURM_NODEID", "0");  // The batch script runs on the first node.
  env.Set("SLURMD_NODENAME", input.node_name);
  env.Set("SLURM_SUBMIT_DIR", spec.work_dir());
  // sbatch --container: srun in the script runs its steps in the bundle too.
  if (!spec.container().bundle().empty()) env.Set("SLURM_CONTAINER", spec.container().bundle());
  if (!spec.submit_host().empty()) env.Set("SLURM_SUBMIT_HOST", spec.submit_host());
  env.Set("SLURM_CLUSTER_NAME", input.cluster_name);
  env.Set("SLURM_RESTART_COUNT", std::to_string(job.restart_count()));
  // What the job asked for: srun inside it takes these as its defaults
  // (SLURM_GPU_BIND, SLURM_GPUS_PER_TASK, ...; docs/steps.md).
  for (const auto& [name, value] : model::RequestVariables(spec)) env.Set(name, value);
  const bool memory_asked = spec.mem_per_cpu_mb() != 0 || spec.mem_per_gpu_mb() != 0 ||
                            (spec.mem_given() && spec.mem_per_node_mb() != 0);
  if (!memory_asked && !spec.mem_given() && input.default_mem_per_cpu_mb != 0) {
    // The memory came from DefMemPerCPU: Slurm reports the rule, per CPU.
    env.Set("SLURM_MEM_PER_CPU", std::to_string(input.default_mem_per_cpu_mb));
  } else if (!memory_asked && !job.mem_by_node_mb().empty()) {
    // --mem=0, or no default: the whole node, as the allocation holds it on
    // the script's node.
    env.Set("SLURM_MEM_PER_NODE", std::to_string(job.mem_by_node_mb(0)));
  }
  for (const auto& [name, value] : model::ArrayVariables(job)) env.Set(name, value);
  if (!input.gpu_indices.empty()) {
    std::vector<uint32_t> visible = input.gpu_indices;
    if (input.devices_constrained) {
      for (uint32_t i = 0; i < visible.size(); ++i) visible[i] = i;
    }
    const std::string physical = JoinNumbers(input.gpu_indices);
    const std::string ordinals = JoinNumbers(visible);
    env.Set("SLURM_GPUS_ON_NODE", std::to_string(input.gpu_indices.size()));
    env.Set("SLURM_JOB_GPUS", physical);
    env.Set("GPU_DEVICE_ORDINAL", ordinals);
    env.Set("CUDA_VISIBLE_DEVICES", ordinals);
    env.Set("ROCR_VISIBLE_DEVICES", ordinals);
    env.Set("ZE_AFFINITY_MASK", ordinals);
  }
  return env.Take();
}

}  // namespace rota::noded
