#pragma once

// priority/multifactor: a pending job's priority is the sum of weight x factor
// over age, fair-share, job size, partition, QoS, association and TRES, each
// factor in [0, 1], less the job's nice value. Pure: the time is a parameter,
// the job comes as the numbers the factors read (PriorityJob) and the
// cluster's totals in a PriorityCluster built once per pass; the controller
// (ctld/core/multifactor.h) makes both from its records and configuration.
//
// Fair-share comes from the share tree through PriorityJob; association is
// the job's association Priority over the highest one, as in Slurm 22.05.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conf/cluster_config.h"

namespace rota::sched {

// What of a job the factors read.
struct PriorityJob {
  int64_t age_start = 0;  // Accrue (or eligible) time; 0: not yet eligible
  uint32_t nodes = 1;
  uint32_t cpus = 1;
  uint64_t gpus = 0;
  uint32_t partition_job_factor = 1;
  uint32_t qos_priority = 0;
  uint32_t assoc_priority = 0;  // The association's Priority (policy_table.h)
  int32_t nice = 0;
  double fairshare = 0;  // The association's fair-share factor (fairshare_tree.h)
};

// Cluster-wide denominators.
struct PriorityCluster {
  uint32_t total_nodes = 1;
  uint32_t total_cpus = 1;
  uint64_t total_gpus = 0;
  uint32_t max_partition_job_factor = 1;
  uint32_t max_qos_priority = 0;
  uint32_t max_assoc_priority = 0;
};

struct PrioritySettings {
  conf::PriorityWeights weights;
  int64_t max_age_s = 7 * 24 * 3600;
  bool favor_small = false;
};

// Each factor in [0, 1] and each weighted value (weight x factor).
struct PriorityBreakdown {
  double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  std::vector<std::pair<std::string, double>> tres;  // TRES key -> factor
  double weighted_age = 0, weighted_assoc = 0, weighted_fairshare = 0, weighted_job_size = 0,
         weighted_partition = 0, weighted_qos = 0;
  std::vector<std::pair<std::string, double>> weighted_tres;
  int64_t nice = 0;
  uint32_t priority = 1;  // Sum of weighted values less nice, truncated, at least 1
};

PriorityBreakdown ComputePriority(const PriorityJob& job, const PriorityCluster& cluster,
                                  const PrioritySettings& settings, int64_t now);

// "gres/gpu=31" (rounded weighted values, zeros left out, comma separated).
std::string FormatWeightedTres(const std::vector<std::pair<std::string, double>>& tres);

}  // namespace rota::sched
