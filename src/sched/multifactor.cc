#include "sched/multifactor.h"

#include <algorithm>
#include <cmath>

namespace rota::sched {
namespace {

double Ratio(double part, double whole) {
  if (whole <= 0) return 0;
  return std::clamp(part / whole, 0.0, 1.0);
}

}  // namespace

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

}  // namespace rota::sched
