#include "ctld/core/multifactor.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/gres_spec.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

// "gpu:a100:2", "a100:2" or "2" -> 2; a bare type ("gpu:a100") is one.
uint64_t TrailingCount(std::string_view text) {
  if (text.empty()) return 0;
  size_t colon = text.rfind(':');
  std::string_view tail = colon == std::string_view::npos ? text : text.substr(colon + 1);
  uint64_t n = 0;
  bool digits = !tail.empty();
  for (char c : tail) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (digits) return n;
  return colon == std::string_view::npos ? 0 : 1;
}

}  // namespace

uint64_t RequestedGpuCount(const wire::JobSpec& spec, uint32_t nodes, uint32_t tasks) {
  if (!spec.gpus().empty()) return TrailingCount(spec.gpus());
  if (!spec.gpus_per_node().empty()) return TrailingCount(spec.gpus_per_node()) * nodes;
  if (!spec.gpus_per_task().empty()) return TrailingCount(spec.gpus_per_task()) * tasks;
  uint64_t total = 0;
  for (std::string_view item : Split(spec.gres(), ',')) {
    if (item.substr(0, 3) != "gpu") continue;
    total += (item == "gpu" ? 1 : TrailingCount(item)) * nodes;
  }
  return total;
}

bool IsMultifactor(const conf::ClusterConfig& config) {
  return config.settings.priority_type == "priority/multifactor";
}

sched::PriorityCluster MakePriorityCluster(const conf::ClusterConfig& config) {
  sched::PriorityCluster c;
  uint64_t cpus = 0, gpus = 0;
  for (const conf::NodeConfig& n : config.nodes) {
    cpus += n.cpus;
    for (const GresSpec& g : n.gres) {
      if (g.name == "gpu") gpus += g.count;
    }
  }
  c.total_nodes = std::max<uint32_t>(static_cast<uint32_t>(config.nodes.size()), 1);
  c.total_cpus = static_cast<uint32_t>(std::max<uint64_t>(cpus, 1));
  c.total_gpus = gpus;
  for (const conf::PartitionConfig& p : config.partitions) {
    c.max_partition_job_factor = std::max(c.max_partition_job_factor, p.priority_job_factor);
  }
  // Raised from accounting's QoS and associations by the core (job_priorities.cc).
  c.max_qos_priority = 0;
  c.max_assoc_priority = 0;
  return c;
}

sched::PrioritySettings MakePrioritySettings(const conf::ClusterConfig& config) {
  sched::PrioritySettings s;
  s.weights = config.settings.priority_weights;
  s.max_age_s = config.settings.priority_max_age;
  s.favor_small = config.settings.priority_favor_small;
  return s;
}

sched::PriorityJob MakePriorityJob(const wire::JobRecord& job, const conf::ClusterConfig& config) {
  const wire::JobSpec& s = job.spec();
  sched::PriorityJob p;
  p.age_start = job.accrue_time() > 0 ? job.accrue_time() : job.eligible_time();
  p.nodes = std::max<uint32_t>({job.req_nodes(), s.min_nodes(), 1});
  uint32_t tasks = std::max<uint32_t>(s.num_tasks(), 1);
  p.cpus =
      job.alloc_cpus() > 0 ? job.alloc_cpus() : tasks * std::max<uint32_t>(s.cpus_per_task(), 1);
  p.gpus = RequestedGpuCount(s, p.nodes, tasks);
  if (const conf::PartitionConfig* part = config.FindPartition(s.partition())) {
    p.partition_job_factor = part->priority_job_factor;
  }
  p.nice = s.nice();
  return p;
}

}  // namespace rota::ctld
