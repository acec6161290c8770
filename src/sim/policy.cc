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

sched::SchedulingPolicy PolicyFor(Policy policy, const conf::ClusterConfig& config,
                                  bool predict_runtime) {
  sched::SchedulingPolicy site = sched::PolicyOf(config);
  if (predict_runtime) site.predict_runtime = true;
  switch (policy) {
    case Policy::kFcfs:
      return sched::FcfsPolicy(site);
    case Policy::kSlurm:
      site.backfill = true;
      return site;
    case Policy::kEasy:
      return sched::EasyPolicy(site);
    case Policy::kConservative:
      return sched::ConservativePolicy(site);
  }
  return site;
}

}  // namespace rota::sim
