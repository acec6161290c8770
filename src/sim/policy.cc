#include "sim/policy.h"

#include <fmt/format.h>

namespace rota::sim {

Result<Policy> ParsePolicy(const std::string& name) {
  if (name == "fcfs") return Policy::kFcfs;
  if (name == "easy") return Policy::kEasy;
  if (name == "conservative") return Policy::kConservative;
  if (name == "slurm") return Policy::kSlurm;
  return InvalidArgument(
      fmt::format("unknown --policy {} (fcfs, easy, conservative or slurm)", name));
}

void ApplyPolicy(Policy policy, conf::ClusterConfig& config) {
  conf::SchedulerParameters& p = config.settings.scheduler;
  switch (policy) {
    case Policy::kFcfs:
      config.settings.scheduler_type = "sched/builtin";
      return;
    case Policy::kSlurm:
      config.settings.scheduler_type = "sched/backfill";
      return;
    case Policy::kEasy:
    case Policy::kConservative:
      config.settings.scheduler_type = "sched/backfill";
      p.bf_interval = 0;
      p.bf_resolution = 1;
      p.bf_window = kInfiniteDuration;
      p.bf_max_job_test = 0;
      p.bf_max_job_part = 0;
      p.bf_max_job_user = 0;
      p.bf_min_age_reserve = 0;
      p.bf_job_part_count_reserve = policy == Policy::kEasy ? 1 : 0;
      return;
  }
}

}  // namespace rota::sim
