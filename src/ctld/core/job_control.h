#pragma once

// Job control: what happens to a job from its start to its end, and to the
// nodes it runs on. A job starts (StartOn), runs, is signalled, warned,
// suspended, timed out, requeued or cancelled, ends COMPLETING until its nodes
// have cleaned up, and is purged after MinJobAge; node daemons report its end,
// its GPUs' idleness and their own jobs, and a node that falls silent takes
// its jobs down with it. Job steps (srun) live and end with their job's run.
//
// Owns the job steps, the PrologSlurmctld runs this process waits for, and
// the time Tick next has work (next_wake). Is the JobLifecycle through which
// the other objects (gang slicing, preemption, reservations, the scheduling
// cycle) change jobs. Reads the configuration and the accounting policy in
// force at each call; changes jobs and nodes through their tables. Owned by
// ControllerCore (state loop thread), which routes commands here.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "ctld/core/accounting_policy.h"
#include "ctld/core/caller.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_lifecycle.h"
#include "ctld/core/job_priorities.h"
#include "ctld/core/job_table.h"
#include "ctld/core/node_events.h"
#include "ctld/core/node_table.h"
#include "ctld/core/preemption.h"
#include "ctld/core/runtime_forecasts.h"
#include "ctld/core/sched_stats.h"
#include "ctld/core/step_table.h"
#include "rota.pb.h"
#include "sched/allocation.h"

namespace rota::ctld {

class JobControl final : public JobLifecycle {
 public:
  // What job control reads and changes of the controller's other parts.
  // REQUIRES: all outlive it; `config` is the core's pointer, read at each
  // call (a reconfigure swaps it). Preemption may be constructed after this
  // object (it is handed this one), as long as nothing runs before both are.
  struct Parts {
    const std::shared_ptr<const conf::ClusterConfig>& config;
    JobTable& jobs;
    NodeTable& nodes;
    NodeEventTracker& node_events;
    const AccountingPolicy& accounting;
    const JobPriorities& priorities;
    Preemption& preemption;
    RuntimeForecasts& forecasts;
    SchedStats& stats;
  };
  explicit JobControl(Parts parts)
      : config_(parts.config),
        jobs_(parts.jobs),
        nodes_(parts.nodes),
        node_events_(parts.node_events),
        accounting_(parts.accounting),
        priorities_(parts.priorities),
        preemption_(parts.preemption),
        forecasts_(parts.forecasts),
        stats_(parts.stats) {}

  // ---- JobLifecycle ----
  uint32_t StartOn(uint32_t job_id, const sched::Allocation& allocation, int64_t now,
                   Effects& effects, bool launch = true) override;
  void Persist(const wire::JobRecord& job, Effects& effects) override;
  void ResumeJob(wire::JobRecord& job, int64_t now, Effects& effects) override;
  void NodeCleanedUp(wire::JobRecord& job, const std::string& node, int64_t now,
                     Effects& effects) override;
  void NoteWake(int64_t t) override {
    if (t > 0 && (!next_wake_ || t < *next_wake_)) next_wake_ = t;
  }
  void BeginCompleting(wire::JobRecord& job, wire::JobState final_state, int64_t now,
                       Effects& effects) override;
  void SendWarning(uint32_t job_id, Effects& effects) override;
  const conf::ClusterConfig& config() const override { return *config_; }
  const PolicyTable* policy() const override { return accounting_.table(); }

  // ---- Users' and administrators' commands (ControllerCore's, routed) ----
  wire::SignalJobsResponse SignalJobs(const wire::SignalJobsRequest& request, const Caller& caller,
                                      int64_t now, Effects& effects);
  wire::UpdateJobResponse UpdateJobs(const wire::UpdateJobRequest& request, const Caller& caller,
                                     int64_t now, Effects& effects);
  Status UpdateNodes(const wire::UpdateNodeRequest& request, const Caller& caller, int64_t now,
                     Effects& effects);
  Result<wire::CreateStepResponse> CreateStep(const wire::CreateStepRequest& request,
                                              const Caller& caller, int64_t now, Effects& effects);
  Status EndStep(const wire::StepEndedRequest& request, const Caller& caller, int64_t now,
                 Effects& effects);

  // ---- Node daemons' reports (ControllerCore's, routed) ----
  Status NodeRegistered(const wire::NodeRegisterRequest& request, int64_t now, Effects& effects);
  void NodeLost(const std::string& node, int64_t now, Effects& effects);
  Status ReportExit(const wire::JobExitedRequest& report, int64_t now, Effects& effects);
  Status JobExited(uint32_t job_id, uint32_t wait_status, int64_t now, Effects& effects,
                   const std::string& node, bool out_of_memory, bool gpu_failed);
  Status GpuIdleReported(const wire::JobGpuIdleRequest& report, int64_t now, Effects& effects);
  std::vector<wire::GpuShare> GpuSharesOn(const std::string& node) const;
  void PrologSlurmctldDone(uint32_t job_id, uint32_t run, bool ok, int64_t now, Effects& effects);

  // ---- Time ----
  // One walk over all jobs: time limits reached, warnings and mails due,
  // GraceTime over, GpuIdlePolicy actions, PrologSlurmctld runs lost to a
  // restart, finished jobs past MinJobAge; notes when the next is due.
  void SweepTimers(int64_t now, Effects& effects);
  // Nodes silent for SlurmdTimeout go DOWN* and lose their jobs; notes when
  // the next one would.
  void CheckNodeLiveness(int64_t now, Effects& effects);
  // When Tick next has work to do (nullopt: only when something happens);
  // may be early, never late.
  std::optional<int64_t> next_wake() const { return next_wake_; }
  // Forgets it (a restore, a clock step): the next sweep finds it again.
  void ForgetWake() { next_wake_.reset(); }

  // ---- Steps and bookkeeping ----
  // The job steps of running jobs (srun); changed through CreateStep/EndStep,
  // and restored from the log.
  const StepTable& steps() const { return steps_; }
  StepTable& restored_steps() { return steps_; }
  // Forgets the steps of jobs no longer running (nothing to log: a restart
  // forgets them too).
  void PruneSteps();
  // Also tells accounting of the node going out of service or back (node_events.h).
  void PersistNode(const NodeRuntime& node, int64_t now, Effects& effects);
  // A job back in the queue shows JobHeldUser/JobHeldAdmin when held (priority
  // 0), no reason otherwise.
  static void SetHeldReason(wire::JobRecord& job);
  // A node's Prolog failed: held (priority 0, by its user) with the reason
  // "launch failed requeued held".
  static void HoldAfterFailedLaunch(wire::JobRecord& job);

 private:
  // Copy-on-write: a record shared with a published view is cloned first.
  wire::JobRecord& Mutable(uint32_t job_id) { return jobs_.Mutable(job_id); }
  // The attempt's steps on its accounting record, and dropping them once the
  // attempt is over (job_steps.cc).
  void AttachSteps(const wire::JobRecord& job, wire::AccountingJob& record) const;
  void EndAttemptSteps(const wire::JobRecord& job, Effects& effects);
  // Keeps the batch step's usage from `report` on the job when it comes from
  // the node that runs this run's batch script (job_steps.cc).
  void NoteBatchUsage(const wire::JobExitedRequest& report);

  // When running `job` (with a time limit) is killed: its end time plus
  // OverTimeLimit; nullopt when OverTimeLimit is UNLIMITED.
  std::optional<int64_t> TimeLimitKillTime(const wire::JobRecord& job) const;
  // Splits the next pending task off an array's meta record.
  uint32_t SplitArrayTask(uint32_t meta_id, std::optional<uint32_t> task, Effects& effects);
  // The job ends in `state` now; a COMPLETING job keeps the end time it had.
  // Gives the allocation back; persists.
  void FinishJob(wire::JobRecord& job, wire::JobState state, int64_t now, Effects& effects);
  // The early report: the batch script ended, the node still cleans up.
  Status ScriptEnded(const wire::JobExitedRequest& report, int64_t now, Effects& effects);
  // The state a run that ended with `wait_status` ends in.
  static wire::JobState EndState(const wire::JobRecord& job, uint32_t wait_status,
                                 bool out_of_memory);
  // The GPU idle flag of a job that stops running: its event closed, the
  // flag and the nodes' reports cleared (the caller persists).
  void EndGpuIdle(wire::JobRecord& job, int64_t now, Effects& effects);
  // Closes the flag's event and clears the flag, keeping the nodes' reports.
  void UnflagGpuIdle(wire::JobRecord& job, int64_t now, Effects& effects);
  // The partition's GpuIdlePolicy cancels or requeues a job still flagged.
  void ActOnIdleGpus(uint32_t job_id, int64_t now, Effects& effects);
  // Back to PENDING for another run (requeue, node loss, failed prolog): the
  // allocation is released and the run's traces cleared; the caller persists.
  // `attempt_state`: how accounting records the attempt that ends here
  // (REQUEUED, NODE_FAIL, ...).
  void ReturnToQueue(wire::JobRecord& job, wire::JobState attempt_state, int64_t now,
                     Effects& effects);
  // Jobs running on `node` are requeued (when allowed) or end as NODE_FAIL.
  void FailJobsOn(const std::string& node, int64_t now, Effects& effects);
  // -k/--no-kill: the job goes on without `node` (not its batch script's),
  // its allocation shrunk to the other nodes. False when it cannot.
  bool ExciseNode(wire::JobRecord& job, const std::string& node, Effects& effects);
  // --signal: when the job's warning signal is due; nullopt when it asked for
  // none, has no time limit, or was warned in this run already.
  std::optional<int64_t> WarnTime(const wire::JobRecord& job) const;
  // scontrol suspend / resume (privileged): "" or the error for the user.
  std::string AdminSuspend(uint32_t job_id, bool suspend, int64_t now, Effects& effects);
  void MarkNotResponding(NodeRuntime& node, int64_t now, Effects& effects);
  // The node's list of its jobs against the records (node_job_sync.cc): jobs
  // it holds but should not are killed there; a running job its batch node no
  // longer has (after BatchStartTimeout) is requeued when allowed, else ends
  // as NODE_FAIL; a COMPLETING job it no longer has is cleaned up there.
  void ReconcileNodeJobs(const wire::NodeRegisterRequest& report, int64_t now, Effects& effects);
  // Drains `node` when its last registration fell short; true when it did.
  bool DrainForShortfall(NodeRuntime& node, int64_t now);
  std::vector<uint32_t> ResolveJobIds(const std::string& text, std::string* error);
  // Why `job_id` may not take the dependency `text` (Slurm's words), or
  // empty: bad syntax, a job that does not exist, itself, or a chain of
  // dependencies that leads back to it.
  std::string DependencyProblem(uint32_t job_id, const std::string& text) const;
  std::string UpdateOneJob(uint32_t job_id, const wire::UpdateJobRequest& request,
                           const Caller& caller, int64_t now, Effects& effects);

  const std::shared_ptr<const conf::ClusterConfig>& config_;
  JobTable& jobs_;
  NodeTable& nodes_;
  NodeEventTracker& node_events_;
  const AccountingPolicy& accounting_;
  const JobPriorities& priorities_;
  Preemption& preemption_;
  RuntimeForecasts& forecasts_;
  SchedStats& stats_;

  StepTable steps_;
  std::optional<int64_t> next_wake_;  // Earliest time Tick has work; may be early, never late
  // Jobs whose PrologSlurmctld this process asked for and has not heard back
  // about (a restart forgets them: SweepTimers asks again).
  std::set<uint32_t> prologs_in_flight_;
};

}  // namespace rota::ctld
