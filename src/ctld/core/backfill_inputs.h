#pragma once

// What the backfill planner is given, from the controller's records: shared by
// the backfill pass (backfill_pass.cc) and rota why's what-if plans
// (what_if.cc), so that both ask the same planner the same question.

#include <cstdint>
#include <vector>

#include "conf/cluster_config.h"
#include "ctld/core/job_shape.h"
#include "rota.pb.h"
#include "sched/backfill.h"
#include "sched/scheduling_policy.h"

namespace rota::ctld {

// Jobs the main pass left pending for want of resources (its own or those of
// a job ahead): the only ones backfill may start or plan.
bool WaitsForResources(const wire::JobRecord& j);

// How long a pending job is planned to run: its expected runtime when it
// carries one shorter than its limit and `predictions` are on
// (SchedulerParameters=rota_predict_runtime), else its limit (-1: no limit).
int64_t PlannedDuration(const wire::JobRecord& j, bool predictions);

// When a holding job's resources are planned to come back (sched::kForever
// for a job without a limit). `predictions`: SchedulerParameters=
// rota_predict_runtime, without which a job's expected runtime is ignored
// (a site that turns it off plans as Slurm at once, jobs already submitted
// included).
int64_t PlannedEnd(const wire::JobRecord& j, int64_t now, bool predictions);

// Pending `j` shaped as `shape` in partition number `partition_index`, on
// `candidates` (REQUIRES: outlives the plan).
sched::BackfillJob BackfillJobOf(const wire::JobRecord& j, JobShape shape,
                                 const std::vector<uint32_t>* candidates, uint32_t partition_index,
                                 const sched::SchedulingPolicy& policy, int64_t now);

}  // namespace rota::ctld
