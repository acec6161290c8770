#include "ctld/core/multifactor.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/gres_spec.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

double Ratio(double part, double whole) {
  if (whole <= 0) return 0;
  return std::clamp(part / whole, 0.0, 1.0);
}

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

PriorityBreakdown ComputePriority(const PriorityJob& job, const PriorityCluster& cluster,
                                  const PrioritySettings& settings, int64_t now) {
  const conf::PriorityWeights& w = settings.weights;
  PriorityBreakdown b;
  if (job.age_start > 0 && now > job.age_start && settings.max_age_s > 0) {
    b.age = Ratio(static_cast<double>(std::min<int64_t>(now - job.age_start, settings.max_age_s)),
                  static_cast<double>(settings.max_age_s));
  }
  double size = (Ratio(job.nodes, cluster.total_nodes) + Ratio(job.cpus, cluster.total_cpus)) / 2;
  b.job_size = settings.favor_small ? 1.0 - size : size;
  b.partition = Ratio(job.partition_job_factor, cluster.max_partition_job_factor);
  b.qos = Ratio(job.qos_priority, cluster.max_qos_priority);
  b.fairshare = std::clamp(job.fairshare, 0.0, 1.0);
  b.assoc = Ratio(job.assoc_priority, cluster.max_assoc_priority);

  b.weighted_age = w.age * b.age;
  b.weighted_assoc = w.assoc * b.assoc;
  b.weighted_fairshare = w.fairshare * b.fairshare;
  b.weighted_job_size = w.job_size * b.job_size;
  b.weighted_partition = w.partition * b.partition;
  b.weighted_qos = w.qos * b.qos;
  double sum = b.weighted_age + b.weighted_assoc + b.weighted_fairshare + b.weighted_job_size +
               b.weighted_partition + b.weighted_qos;
  for (const auto& [key, weight] : w.tres) {
    double factor = 0;
    if (key == "cpu") {
      factor = Ratio(job.cpus, cluster.total_cpus);
    } else if (key == "node") {
      factor = Ratio(job.nodes, cluster.total_nodes);
    } else if (key == "gres/gpu") {
      factor = Ratio(static_cast<double>(job.gpus), static_cast<double>(cluster.total_gpus));
    }
    b.tres.emplace_back(key, factor);
    b.weighted_tres.emplace_back(key, weight * factor);
    sum += weight * factor;
  }
  b.nice = job.nice;
  double total = std::floor(sum) - static_cast<double>(job.nice);
  b.priority = static_cast<uint32_t>(std::clamp(total, 1.0, 4294967295.0));
  return b;
}

std::string FormatWeightedTres(const std::vector<std::pair<std::string, double>>& tres) {
  std::string out;
  for (const auto& [key, value] : tres) {
    long long shown = std::llround(value);
    if (shown == 0) continue;
    if (!out.empty()) out += ',';
    out += key + "=" + std::to_string(shown);
  }
  return out;
}

bool IsMultifactor(const conf::ClusterConfig& config) {
  return config.settings.priority_type == "priority/multifactor";
}

PriorityCluster MakePriorityCluster(const conf::ClusterConfig& config) {
  PriorityCluster c;
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
  // Raised from accounting's QoS and associations by the core (priority_recalc.cc).
  c.max_qos_priority = 0;
  c.max_assoc_priority = 0;
  return c;
}

PrioritySettings MakePrioritySettings(const conf::ClusterConfig& config) {
  PrioritySettings s;
  s.weights = config.settings.priority_weights;
  s.max_age_s = config.settings.priority_max_age;
  s.favor_small = config.settings.priority_favor_small;
  return s;
}

PriorityJob MakePriorityJob(const wire::JobRecord& job, const conf::ClusterConfig& config) {
  const wire::JobSpec& s = job.spec();
  PriorityJob p;
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
