#pragma once

// scancel's filters that Slurm's scancel applies to the jobs it lists before
// signalling them (-A, -q, -R, -w, --wckey): Rota's does the same, listing the
// jobs through the controller and signalling those that pass by id.

#include <string>
#include <vector>

#include "rota.pb.h"

namespace rota::cli {

struct ScancelListFilters {
  std::vector<std::string> accounts;      // -A
  std::vector<std::string> qos;           // -q
  std::vector<std::string> reservations;  // -R
  std::vector<std::string> nodes;         // -w, expanded
  std::vector<std::string> wckeys;        // --wckey
  bool empty() const {
    return accounts.empty() && qos.empty() && reservations.empty() && nodes.empty() &&
           wckeys.empty();
  }
};

// The ids of the jobs of `jobs` that have not ended and pass every filter
// (a job on any of the nodes passes -w), in their order.
std::vector<std::string> JobsPassingFilters(const std::vector<wire::JobRecord>& jobs,
                                            const ScancelListFilters& filters);

}  // namespace rota::cli
