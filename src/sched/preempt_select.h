#pragma once

// Choosing the running jobs to displace for a pending one (preemption). The
// caller says which running jobs may be displaced at all (a lower
// PriorityTier, a PreemptMode other than OFF, past PreemptExemptTime); this
// picks a small set whose release lets the pending job fit, and where it
// would then go. Pure: no clock, no I/O.

#include <cstdint>
#include <optional>
#include <vector>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/request.h"

namespace rota::sched {

// A running job that may be displaced.
struct PreemptCandidate {
  uint32_t job_id = 0;
  uint32_t priority = 0;
  int64_t start_time = 0;
  Allocation allocation;  // What it holds now (part of `usage`)
};

struct PreemptPlan {
  std::vector<uint32_t> victims;  // Job ids, in the order they were chosen
  Allocation allocation;          // Where the pending job fits once they are gone
};

// The victims whose release lets `req` fit on `candidates`, or nullopt when
// even displacing every candidate is not enough. Candidates are taken lowest
// priority first, then youngest (latest start), then highest job id, until
// the job fits; then every victim the placement does not need is spared
// again, the most valuable first, so the set is small and touches few nodes.
// With `youngest_first` (SchedulerParameters=preempt_youngest_first) the
// latest start comes first whatever the priority.
// REQUIRES: each candidate's allocation is held in `usage`.
std::optional<PreemptPlan> ChoosePreemptees(const ClusterModel& model,
                                            const std::vector<NodeUsage>& usage,
                                            const std::vector<uint32_t>& candidates,
                                            const Request& req,
                                            std::vector<PreemptCandidate> preemptable,
                                            bool youngest_first = false);

}  // namespace rota::sched
