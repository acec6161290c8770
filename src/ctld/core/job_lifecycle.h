#pragma once

// What an object that acts on jobs (gang slicing, preemption, advance
// reservations, the scheduling cycle) asks of job control when it changes a
// job. Job control keeps a job's record, its place on the nodes, the state
// log and the timers in step; an object changes records through
// JobTable::Mutable and the node accounting through NodeTable, and calls
// these for the rest, so that it never needs the core's other parts.
// Implemented by JobControl (job_control.h).

#include <cstdint>
#include <string>

#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "ctld/core/policy_table.h"
#include "rota.pb.h"
#include "sched/allocation.h"

namespace rota::ctld {

class JobLifecycle {
 public:
  virtual ~JobLifecycle() = default;

  // Starts pending `job_id` (an array's next task) on `allocation`, which
  // must be free now; returns the started job's id. `launch` false: only the
  // record is written and the resources taken; the caller launches later.
  virtual uint32_t StartOn(uint32_t job_id, const sched::Allocation& allocation, int64_t now,
                           Effects& effects, bool launch) = 0;
  // Logs `job`'s record as it is now (and tells accounting what changed).
  virtual void Persist(const wire::JobRecord& job, Effects& effects) = 0;
  // Resumes a SUSPENDED job whose allocation is free again; persists.
  virtual void ResumeJob(wire::JobRecord& job, int64_t now, Effects& effects) = 0;
  // `node` ("": every node) is done with COMPLETING `job`; persists.
  virtual void NodeCleanedUp(wire::JobRecord& job, const std::string& node, int64_t now,
                             Effects& effects) = 0;
  // Something becomes due at `t`: Tick is to run no later than that.
  virtual void NoteWake(int64_t t) = 0;

  // A running job ended or was told to end: COMPLETING, `final_state` to
  // come once its nodes have cleaned up; persists.
  virtual void BeginCompleting(wire::JobRecord& job, wire::JobState final_state, int64_t now,
                               Effects& effects) = 0;
  // Sends running `job_id` its --signal warning (once a run); persists.
  virtual void SendWarning(uint32_t job_id, Effects& effects) = 0;

  // The configuration and the accounting policy in force (null until
  // rotadbd's is known); both may change between calls (reconfigure).
  virtual const conf::ClusterConfig& config() const = 0;
  virtual const PolicyTable* policy() const = 0;
};

}  // namespace rota::ctld
