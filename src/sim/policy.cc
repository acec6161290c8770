#include "sim/policy.h"

#include <fmt/format.h>

namespace rota::sim {

Result<Policy> ParsePolicy(const std::string& name) {
  if (name == "fcfs") return Policy::kFcfs;
  if (name == "easy" || name == "conservative" || name == "slurm") {
    return FailedPrecondition(
        fmt::format("--policy {}: backfill is not in the controller yet; it comes with "
                    "the backfill issue. Only --policy fcfs (the controller's main "
                    "pass) can be simulated now.",
                    name));
  }
  return InvalidArgument(fmt::format(
      "unknown --policy {} (fcfs; easy, conservative, slurm come with backfill)", name));
}

}  // namespace rota::sim
