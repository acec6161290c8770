#pragma once

// One scheduling cycle of the controller: the main pass over the pending
// queue in priority order (scheduling_cycle.cc: the controller's side of
// sched::RunMainPass, which decides the order of checks and the blocking), then, when
// its policy (sched/scheduling_policy.h) backfills and every bf_interval, the backfill pass
// (backfill_pass.cc: the controller's side of sched::PlanBackfill). The main
// pass decides each job's reason, starts what fits in order, and lets
// preemption and gang scheduling act for what does not; backfill starts what
// fits without delaying a job ahead and records the others' planned starts.
//
// It owns what lives between backfill passes (BackfillState). Everything else
// it reads or changes belongs to the parts it is handed; jobs start through
// job control's JobLifecycle. Owned by ControllerCore (state loop thread).

#include <cstdint>
#include <vector>

#include "ctld/core/accounting_policy.h"
#include "ctld/core/backfill_state.h"
#include "ctld/core/effects.h"
#include "ctld/core/gang_pass.h"
#include "ctld/core/job_lifecycle.h"
#include "ctld/core/job_table.h"
#include "ctld/core/node_table.h"
#include "ctld/core/preemption.h"
#include "ctld/core/reservations.h"
#include "ctld/core/sched_stats.h"
#include "model/pending_reason.h"
#include "rota.pb.h"
#include "sched/availability_profile.h"
#include "sched/scheduling_policy.h"
#include "sched/usage_ledger.h"

namespace rota::ctld {

class SchedulingCycle {
 public:
  // What the passes read and change, each owned by ControllerCore and
  // outliving the cycle.
  struct Parts {
    const sched::SchedulingPolicy& policy;  // Backfill or not, and how
    JobTable& jobs;
    const NodeTable& nodes;
    const AccountingPolicy& accounting;
    const sched::UsageLedger& ledger;  // Decayed usage, for GrpTRESMins
    const AdvanceReservations& reservations;
    Preemption& preemption;
    GangPass& gang;
    SchedStats& stats;
    JobLifecycle& lifecycle;
  };
  explicit SchedulingCycle(Parts parts) : p_(parts) {}

  // The main pass, then the backfill pass when one is due.
  void Run(int64_t now, Effects& effects);

  // The profile the planner starts from at `now`: what is free, the holding
  // jobs' planned ends, the reserved windows.
  sched::AvailabilityProfile BackfillProfile(int64_t now) const;
  // The jobs the backfill pass plans, in its order.
  std::vector<const wire::JobRecord*> BackfillQueue() const;

  // Between backfill passes (bf_interval, bf_continue) and rota-sim's
  // only_to_start.
  BackfillState& backfill() { return backfill_; }

 private:
  // The main pass: sched::RunMainPass decides, MainPassOverTables
  // (scheduling_cycle.cc) answers and acts over the tables.
  class MainPassOverTables;
  void MainPass(int64_t now, Effects& effects);
  // Starts pending `job_id` now if it fits (not on the nodes `kept_off`
  // marks, when given); else `reason` says why not.
  bool TryStart(uint32_t job_id, int64_t now, Effects& effects, const std::vector<bool>* kept_off,
                model::PendingReason* reason);
  // sched/backfill: after the main pass, every bf_interval.
  void BackfillPass(int64_t now, Effects& effects);
  // --kill-on-invalid-dep, else SchedulerParameters=kill_invalid_depend, for
  // a job whose dependency `reason` says can never be satisfied.
  bool KilledForInvalidDependency(const wire::JobRecord& job,
                                  const model::PendingReason& reason) const;
  uint32_t RunningArrayTasks(uint32_t array_job_id) const;
  const conf::ClusterConfig& config() const { return p_.lifecycle.config(); }

  Parts p_;
  BackfillState backfill_;  // The last backfill pass, bf_continue's carry
};

}  // namespace rota::ctld
