#pragma once

// "Will it run, and when": the first moment a job fits, given what is free now
// and when running allocations end. The same Select as "now", asked again at
// each end time with what that end gives back. The backfill planner asks it.

#include <cstdint>
#include <optional>
#include <vector>

#include "sched/allocation.h"
#include "sched/select.h"

namespace rota::sched {

struct Release {
  int64_t time = 0;  // When the allocation ends (its job's end time)
  Allocation allocation;
};

struct StartEstimate {
  int64_t time = 0;
  Allocation allocation;  // Where it would start then
};

// nullopt when the job does not fit even once every release happened.
std::optional<StartEstimate> EarliestStart(const ClusterModel& model, std::vector<NodeUsage> usage,
                                           const std::vector<uint32_t>& candidates,
                                           const Request& req, int64_t now,
                                           std::vector<Release> releases);

}  // namespace rota::sched
