#pragma once

// The main pass of a scheduling cycle: the pending jobs in queue order, each
// started now where it fits. The first job of a partition that does not fit
// for want of resources holds back the jobs after it in that partition
// (reason Priority), and the jobs after it of other partitions keep off that
// partition's nodes (as in Slurm), so that no lower-priority job takes what
// it waits for, whichever partition it was submitted to. A job that named
// every node it needs (-w) holds back no partition: only its nodes are kept
// off. A reservation's jobs are held back by their reservation instead of
// their partition. A job that cannot start for want of nodes that are down
// (ReqNodeNotAvail) or a request its partition cannot take holds back no one
// either, as in Slurm. A job held by something else
// (its begin time, a dependency, a QoS limit, licenses) holds back no one. An
// array starts as many of its tasks as fit and its limits allow.
//
// Pure: the order of the checks and the blocking are decided here; the facts
// (why a job is held, whether it fits) and the acts (start it, give it its
// reason, let preemption act for it) are the caller's, through
// MainPassActions. A start changes what the jobs after it see (the free
// resources, their dependencies, the limits' counts), so the actions are asked
// in queue order, as the pass goes. The controller implements them over its
// tables (ctld/core/scheduling_cycle.cc); tests with a few fields.

#include <cstdint>
#include <span>

#include "model/pending_reason.h"

namespace rota::sched {

struct MainPassJob {
  uint32_t id = 0;
  uint32_t partition = 0;  // Any small id naming its partition: one blocked job holds back the rest
  bool array = false;      // An array's pending tasks: as many start as fit
  // Nodes are held for it (it displaced running jobs): tried even behind a
  // blocked job, or they would stay idle.
  bool holds_nodes = false;
  // A reservation's job waits on its own nodes: when it does not fit, it
  // holds back the later jobs of its reservation only (as in Slurm), and a
  // blocked partition does not hold it back.
  bool in_reservation = false;
  uint32_t reservation = 0;  // With in_reservation: any small id naming it
  // False while it is younger than bf_min_age_reserve or its priority is
  // below bf_min_prio_reserve (sched::MayReserve): when it does not fit, it
  // holds back no one either, as in Slurm.
  bool may_reserve = true;
};

// What may happen before the next start of a job (an array's next task).
enum class NextStart {
  kTry,   // Try to place it
  kHeld,  // It may not start now: its reason says why
  kDone,  // Nothing left to start (the array's last task started), no new reason
};

class MainPassActions {
 public:
  virtual ~MainPassActions() = default;
  // Why `job` may not be tried now (its begin time, dependency, partition,
  // QoS and association limits, licenses), or no reason when it may. May end
  // the job (a deadline passed, a dependency that can never be satisfied):
  // then `*gone` is set and it is not tried.
  virtual model::PendingReason Hold(const MainPassJob& job, bool* gone) = 0;
  // Before each start of `job`, `started` of its tasks already started in
  // this pass: whether another may start (an array's task limit; for the
  // tasks after the first, the limits and licenses as they now stand).
  virtual NextStart Next(const MainPassJob& job, uint32_t started,
                         model::PendingReason* reason) = 0;
  // Starts `job` (an array's next task) when it fits now; else false, with
  // why in `*reason`. With `keep_off`, not on the nodes KeepOff marked in
  // this pass.
  virtual bool TryStart(const MainPassJob& job, bool keep_off, model::PendingReason* reason) = 0;
  // Asked of a job that did not fit: whether it named every node it needs
  // (-w with as many nodes as it asks for).
  virtual bool Pinned(const MainPassJob& job) = 0;
  // `job` did not fit: the rest of the pass keeps off its nodes (`pinned`:
  // the ones it named) or else its partition's nodes (except a job with
  // nodes held for it, or a reservation's job, which run only where they
  // were given).
  virtual void KeepOff(const MainPassJob& job, bool pinned) = 0;
  // `job` did not fit for want of resources: preemption may act for it.
  virtual void NoFit(const MainPassJob& job) = 0;
  // `job` waits for `reason`.
  virtual void Wait(const MainPassJob& job, const model::PendingReason& reason) = 0;
};

// SchedulerParameters' bounds on one pass (0: none). The jobs left out keep
// the reason an earlier pass gave them.
struct MainPassLimits {
  uint32_t max_starts = 0;       // sched_max_job_start: the pass ends with this many starts
  uint32_t partition_depth = 0;  // partition_job_depth: jobs of one partition it goes through
};

// Runs the pass over `queue` (highest priority first). The actions are handed
// the elements of `queue` themselves.
void RunMainPass(std::span<const MainPassJob> queue, MainPassActions& actions,
                 const MainPassLimits& limits = {});

}  // namespace rota::sched
