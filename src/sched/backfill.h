#pragma once

// The backfill pass (sched/backfill): pending jobs, in priority order, each
// either start now or receive a reservation at their earliest start in the
// availability profile, which books their resources from then on. A job
// further down therefore starts now only where it delays no reservation made
// for a job ahead of it: the profile no longer has the reserved resources
// free at the reserved time.
//
// Pure: the profile carries `now`; no clock, no I/O. The caller starts the
// jobs decided kStartNow and shows the reservations (squeue --start).

#include <cstdint>
#include <functional>
#include <vector>

#include "sched/allocation.h"
#include "sched/availability_profile.h"
#include "sched/cluster_model.h"
#include "sched/request.h"

namespace rota::sched {

// SchedulerParameters' bf_* keys, in seconds. 0 for a count: no limit.
struct BackfillParams {
  int64_t window = 24 * 3600;     // bf_window: a start later than now + window gets no reservation
  uint32_t max_job_test = 0;      // bf_max_job_test: jobs tried in one pass
  uint32_t max_job_part = 0;      // bf_max_job_part: jobs tried per partition
  uint32_t max_job_user = 0;      // bf_max_job_user: jobs tried per user
  uint32_t reserve_per_part = 0;  // bf_job_part_count_reserve: reservations per partition
  uint32_t max_job_start = 0;     // bf_max_job_start: the pass ends once it started this many
  // Where a reservation for later goes. True: off the nodes that are wholly
  // idle now where it can (on the others alone, else with the idle ones
  // ranked last), so that they stay for jobs that can start at once and run
  // past it (the "extra" processors of EASY backfill). False: the usual node
  // order at the reserved time (Weight, tightest fit, index), which may
  // reserve idle nodes while busy ones would free in time.
  bool reserve_busy_nodes = true;
};

// A reservation made by an earlier pass: booked again, as it was, for a job
// a resuming pass does not try (bf_continue).
struct KeptReservation {
  int64_t start = 0;
  Allocation allocation;
};

struct BackfillJob {
  uint32_t id = 0;
  Request request;
  // The partition's usable nodes. REQUIRES: outlives the pass.
  const std::vector<uint32_t>* candidates = nullptr;
  uint32_t partition = 0;  // Any small id naming the partition (same id: same candidates)
  uint32_t user = 0;
  int64_t time_limit_s = -1;  // The job's time limit (or its partition's); -1: none
  // False while the job is younger than bf_min_age_reserve, or its priority
  // is below bf_min_prio_reserve (MayReserve): it may start now, but gets no
  // reservation.
  bool may_reserve = true;
  // bf_continue: an earlier pass, cut by bf_max_time, already tried this job.
  // It is not tried again; `kept` (its reservation then, null: none) is
  // booked before any job is tried, so that no job tried now delays it.
  bool carried = false;
  const KeptReservation* kept = nullptr;  // REQUIRES: outlives the pass
};

// How far one pass may go: bf_max_time.
struct BackfillControl {
  // Asked after every job tried; true once the pass has used its time, and
  // the jobs after are left untried. Empty: no limit. The controller backs it
  // with its monotonic clock, tests with a counter.
  std::function<bool()> time_is_up;
};

enum class BackfillOutcome : uint8_t {
  kStartNow,   // Fits now without delaying any reservation: start it
  kReserved,   // Reserved at `start`, on `allocation`
  kNoPlan,     // No start within the window (or it may not reserve): no reservation
  kNotTested,  // Left out by bf_max_job_test / _part / _user, bf_max_time,
               // or carried with nothing kept
};

struct BackfillDecision {
  uint32_t id = 0;
  BackfillOutcome outcome = BackfillOutcome::kNotTested;
  int64_t start = 0;      // kStartNow: now; kReserved: the planned start
  Allocation allocation;  // kStartNow, kReserved: where
};

struct BackfillResult {
  std::vector<BackfillDecision> decisions;  // One per job, in the jobs' order
  uint32_t tested = 0;
  uint32_t started = 0;
  uint32_t reserved = 0;
  uint32_t placements_tried = 0;  // Select calls: the pass's work
  // The pass stopped early on bf_max_time after trying the job at
  // `last_tested` (an index into the jobs); the jobs after it are kNotTested.
  bool out_of_time = false;
  // The pass ended on bf_max_job_start; the jobs after are kNotTested (and
  // not carried to the next pass: bf_continue resumes only a pass cut short
  // by its time).
  bool start_limit_reached = false;
  // Jobs the pass went through (carried, tried or left out by a limit)
  // before it ended: sdiag's depth.
  uint32_t considered = 0;
  int64_t last_tested = -1;  // Index of the last job tried; -1: none
};

// REQUIRES: `jobs` in priority order (highest first, ties broken by the
// caller); `profile` holds the running allocations' ends. Books every start
// and reservation into `profile`.
BackfillResult PlanBackfill(const ClusterModel& model, AvailabilityProfile& profile,
                            const std::vector<BackfillJob>& jobs, const BackfillParams& params,
                            const BackfillControl& control = {});

// Whether a pass could start any of `jobs` at once: false when each asks for
// more CPUs or GPUs than `usage_now` (what is free now, parallel to
// model.nodes) has free over the whole cluster. Such a pass can only make
// reservations. Jobs a pass would not try (`carried`) count as unable.
bool SomeJobMayStartNow(const ClusterModel& model, const std::vector<NodeUsage>& usage_now,
                        const std::vector<BackfillJob>& jobs);

}  // namespace rota::sched
