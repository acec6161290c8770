#pragma once

// Preemption in the controller (PreemptType=preempt/partition_prio or
// preempt/qos): a pending job that does not fit displaces running jobs the
// policy lets it displace. Which ones is sched::ChoosePreemptees' decision;
// this object carries it out (warn, wait GraceTime, then requeue, cancel or
// suspend), holds the freed nodes for the preemptor until it starts, and
// resumes the jobs it suspended once their preemptor no longer needs what it
// took. It owns the holds and whether some job may be suspended; it reads
// and changes jobs through the job and node tables and the core's
// JobLifecycle. Owned by ControllerCore (state loop thread).

#include <cstdint>
#include <vector>

#include "conf/preempt_mode.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_lifecycle.h"
#include "ctld/core/job_table.h"
#include "ctld/core/node_table.h"
#include "ctld/core/preempt_holds.h"
#include "rota.pb.h"

namespace rota::ctld {

class Preemption {
 public:
  // REQUIRES: all three outlive it.
  Preemption(JobTable& jobs, NodeTable& nodes, JobLifecycle& lifecycle)
      : jobs_(jobs), nodes_(nodes), lifecycle_(lifecycle) {}

  // ---- The holds, rebuilt at the start of each scheduling pass ----
  void ClearHolds() { holds_.Clear(); }
  // Pending `job`'s preempt_nodes are held for it.
  void NoteHold(const wire::JobRecord& job) { holds_.Note(job, nodes_.model()); }
  // Removes from `usable` the nodes held for a job other than `job_id`; 0:
  // every held node (backfill never starts a job on one).
  void DropHeld(uint32_t job_id, std::vector<uint32_t>& usable) const {
    holds_.Drop(job_id, usable);
  }

  // Pending `job_id` does not fit: displaces running jobs so that it will,
  // and holds the nodes it will take until it starts. True while jobs
  // displaced for it are still leaving (it keeps waiting, reason Resources);
  // false when nothing can be displaced for it.
  bool TryPreempt(uint32_t job_id, int64_t now, Effects& effects);
  // Kills displaced `job` (its GraceTime is over, or it ended within it): it
  // is requeued (REQUEUE, when requeueable) or ends PREEMPTED once its node
  // has cleaned up.
  void StopDisplaced(wire::JobRecord& job, int64_t now, Effects& effects);
  // Suspended jobs whose preemptor is gone run again where they were, when
  // their resources are free. Called from Tick before the scheduling pass.
  void ResumeDisplaced(int64_t now, Effects& effects);

 private:
  // Displaces running `victim` for pending `for_job`: suspends it
  // (PreemptMode=SUSPEND), or warns it and stops it after its GraceTime.
  void DisplaceJob(uint32_t victim, uint32_t for_job, int64_t now, Effects& effects);
  // How long `job` runs before it may be displaced: its QoS's
  // PreemptExemptTime, else the cluster's.
  int64_t PreemptExemptTimeOf(const wire::JobRecord& job) const;
  // How displaced `victim` leaves (its preemptor is preempted_by); CANCEL
  // when the policy no longer says (reconfigured since).
  conf::PreemptAction ActionAgainst(const wire::JobRecord& victim) const;

  JobTable& jobs_;
  NodeTable& nodes_;
  JobLifecycle& lifecycle_;
  PreemptHolds holds_;  // Nodes held for preemptors; rebuilt at each pass
  // Some job may be SUSPENDED by preemption (set on suspend, and at start,
  // since restored records may hold one; cleared by a ResumeDisplaced walk
  // that finds none).
  bool maybe_suspended_ = true;
};

}  // namespace rota::ctld
