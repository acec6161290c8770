#pragma once

// scancel's filters that Slurm's scancel applies to the jobs it lists before
// signalling them (-A, -q, -R, -w, --wckey): Rota's does the same, listing the
// jobs through the controller and signalling those that pass by id; and -i,
// which asks before each job.

#include <istream>
#include <ostream>
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

// The jobs of `jobs` that have not ended and pass every filter (a job on any
// of the nodes passes -w), in their order.
std::vector<const wire::JobRecord*> JobsPassingFilters(const std::vector<wire::JobRecord>& jobs,
                                                       const ScancelListFilters& filters);

// The id scancel names a job by: "12", or "12_3" for an array task.
std::string ScancelJobId(const wire::JobRecord& job);

// scancel -i: asks on `out`, for each of `jobs`, "Cancel job_id=ID name=NAME
// partition=P [y/n]? " ("Cancel step_id=ID.STEP ..." when `step` is given)
// and reads the answer from `in`: a line starting with y or n, any case,
// else the question again; the end of input answers no. The ids answered yes.
std::vector<std::string> ConfirmedJobs(const std::vector<const wire::JobRecord*>& jobs,
                                       std::istream& in, std::ostream& out,
                                       const std::string& step = "");

}  // namespace rota::cli
