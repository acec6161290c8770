#pragma once

// The controller's state machine: jobs, nodes and their lifecycles. Pure: no
// sockets, files, threads or clock reads — every command takes `now` and
// appends Effects (records to make durable, launches, signals) that the server
// or the simulator carry out. Owned by one thread (the state loop).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "conf/preempt_mode.h"
#include "ctld/core/accounting_policy.h"
#include "ctld/core/caller.h"
#include "ctld/core/effects.h"
#include "ctld/core/gang_pass.h"
#include "ctld/core/job_control.h"
#include "ctld/core/job_priorities.h"
#include "ctld/core/job_table.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/multifactor.h"
#include "ctld/core/node_events.h"
#include "ctld/core/node_table.h"
#include "ctld/core/policy_table.h"
#include "ctld/core/preemption.h"
#include "ctld/core/queue_ahead_plan.h"
#include "ctld/core/reservation_table.h"
#include "ctld/core/reservations.h"
#include "ctld/core/runtime_forecasts.h"
#include "ctld/core/sched_stats.h"
#include "ctld/core/scheduling_cycle.h"
#include "fairshare.pb.h"
#include "model/pending_reason.h"
#include "priority.pb.h"
#include "rota.pb.h"
#include "sched/availability_profile.h"
#include "sched/scheduling_policy.h"
#include "sched/usage_ledger.h"
#include "why.pb.h"

namespace rota::ctld {

// A facade: it owns the objects that keep the controller's state and routes
// each command to the one that owns what it changes (job control, the
// scheduling cycle, preemption, gang slicing, advance reservations,
// priorities, the accounting policy). docs/development.md says which object
// owns what.
class ControllerCore {
 public:
  explicit ControllerCore(std::shared_ptr<const conf::ClusterConfig> config);

  // ---- Recovery ----
  // Rebuilds state from a snapshot (may be null) and the log records after it.
  void Restore(const wire::StateSnapshot* snapshot, const std::vector<wire::StateRecord>& records);
  wire::StateSnapshot Snapshot() const;
  // The same snapshot, serialized straight from the shared records (no copy
  // of every job first): what the state loop writes to disk.
  std::string SerializeSnapshot() const;
  // The same state as SerializeSnapshot, captured cheaply (the job records and
  // payloads are shared, immutable) so another thread can serialize it.
  struct SnapshotView {
    uint32_t next_job_id = 0;
    std::vector<std::shared_ptr<const wire::JobRecord>> jobs;
    std::vector<wire::NodeRecord> nodes;
    std::vector<std::pair<uint32_t, std::shared_ptr<const std::string>>> payloads;
    std::shared_ptr<const PolicyTable> policy;            // May be null
    std::vector<wire::JobStepsState> steps;               // Copied: a few per running job
    std::optional<wire::ReservationState> reservations;   // Unset: none
    std::shared_ptr<const wire::UsageLedgerState> usage;  // Fair-share usage; may be null
    std::string Serialize() const;
  };
  SnapshotView TakeSnapshotView() const;
  // Swaps in a new configuration; jobs are kept. Running jobs on nodes that
  // disappeared keep running in the records until they end.
  void Reconfigure(std::shared_ptr<const conf::ClusterConfig> config);

  // ---- Commands ----
  // Validates and queues a job. Errors carry Slurm's message for the user.
  Result<wire::SubmitJobResponse> Submit(const wire::SubmitJobRequest& request,
                                         const Caller& caller, int64_t now, Effects& effects);
  wire::SignalJobsResponse SignalJobs(const wire::SignalJobsRequest& request, const Caller& caller,
                                      int64_t now, Effects& effects) {
    return control_.SignalJobs(request, caller, now, effects);
  }
  wire::UpdateJobResponse UpdateJobs(const wire::UpdateJobRequest& request, const Caller& caller,
                                     int64_t now, Effects& effects) {
    return control_.UpdateJobs(request, caller, now, effects);
  }
  Status UpdateNodes(const wire::UpdateNodeRequest& request, const Caller& caller, int64_t now,
                     Effects& effects) {
    return control_.UpdateNodes(request, caller, now, effects);
  }
  // A node daemon registered without saying what its host has: the node answers.
  Status NodeRegistered(const std::string& node, int64_t boot_time, int64_t now, Effects& effects);
  // A node daemon registered or sent its heartbeat, saying what its host has
  // (node_liveness.cc). ReturnToService decides whether a node set DOWN for not
  // responding takes jobs again; hardware short of the configuration drains the
  // node with Slurm's reason, unless SlurmdParameters=config_overrides.
  Status NodeRegistered(const wire::NodeRegisterRequest& request, int64_t now, Effects& effects) {
    return control_.NodeRegistered(request, now, effects);
  }
  // A node daemon stopped answering: the node goes DOWN* ("Not responding").
  void NodeLost(const std::string& node, int64_t now, Effects& effects) {
    control_.NodeLost(node, now, effects);
  }
  // A node daemon's report of a job's end, as it came: the batch script ended
  // with the node still cleaning up (`cleanup_follows`: the job becomes
  // COMPLETING), the node is done with the job (JobExited), or its Prolog failed.
  //
  // A job that ends (its script exits, scancel, its time limit) is COMPLETING,
  // holding its allocation, until the node that ran it reports that the job's
  // processes are gone and its Epilog ran, or goes DOWN; only then does it take
  // its final state (final_state) and give its CPUs, memory and GPUs back.
  Status ReportExit(const wire::JobExitedRequest& report, int64_t now, Effects& effects) {
    return control_.ReportExit(report, now, effects);
  }
  // A node daemon says the GPUs of a running job on it have been idle for the
  // job's partition's GpuIdlePolicy period, or are busy again (gpu_idle.h):
  // once they are idle on every node holding some, the job is flagged,
  // rotadbd gets the event, and the policy's mail, cancel or requeue follows;
  // busy again on one node unflags it. Reports about another run, or from a
  // node without its GPUs, are ignored.
  Status GpuIdleReported(const wire::JobGpuIdleRequest& report, int64_t now, Effects& effects) {
    return control_.GpuIdleReported(report, now, effects);
  }
  // The GPUs `node` holds for running jobs whose batch script runs on another
  // node, for its rotad to watch for idleness (the heartbeat's answer).
  std::vector<wire::GpuShare> GpuSharesOn(const std::string& node) const {
    return control_.GpuSharesOn(node);
  }
  // The job's processes on `node` are gone and its Epilog ran; its batch script
  // had ended with `wait_status` (waitpid encoding). A running job ends at once
  // (node daemons that send no early report); a COMPLETING one once no node is
  // awaited any more. `node` names the reporting node daemon; a report from a
  // node the job is not running on (a run requeued elsewhere since) is ignored.
  // Empty: trust the report. `out_of_memory`: the node's cage saw the kernel
  // kill for the memory limit. `gpu_failed`: a health event hit one of the
  // job's GPUs there; a failed job that may be requeued is (NODE_FAIL).
  Status JobExited(uint32_t job_id, uint32_t wait_status, int64_t now, Effects& effects,
                   const std::string& node = "", bool out_of_memory = false,
                   bool gpu_failed = false) {
    return control_.JobExited(job_id, wait_status, now, effects, node, out_of_memory, gpu_failed);
  }
  // PrologSlurmctld of run `run` (restart count) of `job_id` ended: on
  // success the batch script is launched; on failure the job is requeued,
  // or killed when it may not be requeued, as in Slurm. Stale answers (a
  // later run, a job that ended meanwhile) change nothing else.
  void PrologSlurmctldDone(uint32_t job_id, uint32_t run, bool ok, int64_t now, Effects& effects) {
    control_.PrologSlurmctldDone(job_id, run, ok, now, effects);
  }
  // Time-driven work: begin times, time limits, purging old jobs, then a
  // scheduling pass over the pending queue.
  void Tick(int64_t now, Effects& effects);
  // Tick's first step alone: the timers that end or warn jobs (time limits,
  // preemption GraceTime, old jobs purged). rota-sim calls it before the
  // other events of a second: its fake nodes end a killed job at once, and
  // what the job held is then free for that second's submissions and pass.
  void ExpireTimers(int64_t now, Effects& effects) { control_.SweepTimers(now, effects); }
  // The wall clock stepped by `step` seconds (now reads `now`): the times of
  // what is in progress move with it, so that durations are kept
  // (clock_step.cc). The caller asks for a pass afterwards.
  void ClockStepped(int64_t step, int64_t now, Effects& effects);
  // With `on`, a backfill pass that could start no job (each needs more CPUs
  // or GPUs than are free now) is skipped instead of planning reservations
  // that only squeue --start would show, and no pass writes its reservations
  // into the jobs: the same starts for far less work. Not applied while
  // bf_max_time is set (bf_continue carries reservations). For rota-sim,
  // whose results are the starts; off in the controller.
  void SetBackfillOnlyToStart(bool on) { cycle_.backfill().only_to_start = on; }
  // The scheduling policy the cycle runs under: the configuration's
  // (SchedulerType, SchedulerParameters) unless `policy` is given in its
  // place (rota-sim --policy); Reconfigure goes back to the configuration's.
  void UseSchedulingPolicy(const sched::SchedulingPolicy& policy) { scheduling_policy_ = policy; }
  const sched::SchedulingPolicy& scheduling_policy() const { return scheduling_policy_; }

  // ---- Accounting policy (accounting_policy.h) ----
  // Adopts the policy rotadbd holds now (AccountingStorageEnforce); a record
  // keeps it durable when it differs from the table held, so that a restarted
  // controller enforces it even while rotadbd is down. Returns whether it changed.
  bool SetPolicy(wire::PolicyState state, Effects& effects) {
    if (!accounting_.Set(std::move(state), effects)) return false;
    priorities_.PolicyChanged();  // The highest QoS priority may have changed
    return true;
  }
  // The table in force; null until one is known.
  const PolicyTable* policy() const { return accounting_.table(); }
  // slurm.conf PrivateData=jobs: the uid whose jobs and steps alone `caller`
  // may list; none when it may list everyone's (root, SlurmUser, AdminLevel
  // Operator or Administrator, or jobs not private).
  std::optional<uint32_t> JobsVisibleOnlyTo(const Caller& caller) const {
    return accounting_.JobsVisibleOnlyTo(caller);
  }

  // ---- Advance reservations (reservations.h) ----
  // scontrol create|update|delete reservation: root, SlurmUser and
  // AdminLevel Operator/Administrator only. Errors carry Slurm's messages.
  Result<wire::ReservationResponse> CreateReservation(const wire::ReservationRequest& request,
                                                      const Caller& caller, int64_t now,
                                                      Effects& effects) {
    return reservations_.Create(request, accounting_.WithAdminLevel(caller), now, effects);
  }
  Result<wire::ReservationResponse> UpdateReservation(const wire::ReservationRequest& request,
                                                      const Caller& caller, int64_t now,
                                                      Effects& effects) {
    return reservations_.Update(request, accounting_.WithAdminLevel(caller), now, effects);
  }
  Status DeleteReservation(const std::string& name, const Caller& caller, Effects& effects) {
    return reservations_.Delete(name, accounting_.WithAdminLevel(caller), effects);
  }
  // scontrol show reservation [NAME]; NotFound for an unknown name.
  Result<wire::ListReservationsResponse> ListReservations(const std::string& name,
                                                          int64_t now) const {
    return reservations_.List(name, now);
  }
  const ReservationTable& reservations() const { return reservations_.table(); }

  // ---- Reads ----
  // When Tick next has work to do (nullopt: only when something happens).
  std::optional<int64_t> NextWakeTime() const { return control_.next_wake(); }
  // A consistent view of all jobs; cheap when nothing changed since the last call.
  std::shared_ptr<const JobView> PublishJobs() { return jobs_.Publish(); }
  const wire::JobRecord* FindJob(uint32_t job_id) const { return jobs_.Find(job_id); }
  // The script and environment of a job (arrays share their array's).
  std::shared_ptr<const wire::JobPayload> FindPayload(const wire::JobRecord& job) const {
    return jobs_.FindPayload(job);
  }
  const NodeTable& nodes() const { return nodes_; }
  const conf::ClusterConfig& config() const { return *config_; }
  uint32_t next_job_id() const { return jobs_.next_id(); }
  size_t job_count() const { return jobs_.size(); }
  const JobTable& jobs() const { return jobs_; }
  // The job steps of running jobs (srun); see step_table.h. Steps start and
  // end through CreateStep/EndStep (job_steps.cc), which log the change;
  // steps() is for reading.
  const StepTable& steps() const { return control_.steps(); }
  Result<wire::CreateStepResponse> CreateStep(const wire::CreateStepRequest& request,
                                              const Caller& caller, int64_t now, Effects& effects) {
    return control_.CreateStep(request, caller, now, effects);
  }
  Status EndStep(const wire::StepEndedRequest& request, const Caller& caller, int64_t now,
                 Effects& effects) {
    return control_.EndStep(request, caller, now, effects);
  }
  // Forgets the steps of jobs no longer running (nothing to log: a restart
  // forgets them too).
  void PruneSteps() { control_.PruneSteps(); }
  // What sdiag shows (sched_stats.h); the server sets its clock and resets it.
  SchedStats& sched_stats() { return stats_; }
  // priority/multifactor (job_priorities.h): the breakdown sprio shows.
  wire::PriorityResponse DescribePriorities(const wire::PriorityRequest& request,
                                            int64_t now) const {
    return priorities_.Describe(request, now);
  }
  // Fair-share (fairshare_engine.h): the association tree with usage that
  // sshare shows; `caller_user` is shown alone unless all users are asked for.
  wire::FairshareResponse DescribeFairshare(const wire::FairshareRequest& request,
                                            const std::string& caller_user) const {
    return priorities_.DescribeFairshare(request, caller_user);
  }
  const sched::UsageLedger& usage_ledger() const { return priorities_.ledger(); }
  // rota why (why_report.cc): every cause that holds `job_id` now, with its
  // numbers, and what-if plans (AddWhatIf); only state and reason for a job
  // that is not pending. NotFound for an unknown job.
  Result<wire::WhyResponse> ExplainJob(uint32_t job_id, int64_t now) const;
  // rotadbd's record of the runs that ended before this controller started,
  // for the runtime predictor (SchedulerParameters=rota_predict_runtime).
  void LearnRuntimes(const wire::QueryJobsResponse& history) { LearnFromEndedJobs(&history); }
  // How planned starts have turned out (runtime_forecasts.h), for squeue.
  wire::StartForecastRatios StartForecastRatios() const { return forecasts_.Ratios(); }
  // When pending `job_id` would start were every job ahead of it given a
  // reservation (a conservative plan of the queue up to it, as squeue
  // --start shows under Slurm's default bf_job_part_count_reserve): `now`
  // when it could start at once, nullopt when not within bf_window or not
  // waiting for resources. rota-sim measures these forecasts.
  std::optional<int64_t> ForecastStart(uint32_t job_id, int64_t now) const;

 private:
  // Copy-on-write: a record shared with a published view is cloned first.
  wire::JobRecord& Mutable(uint32_t job_id) { return jobs_.Mutable(job_id); }
  // The runtime predictor learns again, oldest first, from the ended runs
  // still in the table and those of `history` (accounting's) it no longer holds.
  void LearnFromEndedJobs(const wire::QueryJobsResponse* history = nullptr);
  // rota why's what-if (what_if.cc): the planner's start for pending `job` as
  // it is and for changes to its request (a shorter time limit, fewer GPUs,
  // another partition or GPU type, no constraint); the changes that would
  // start it sooner go to `out`, soonest first.
  void AddWhatIf(const wire::JobRecord& job, int64_t now, wire::WhyResponse& out) const;
  // The planner of the queue ahead of pending `job` (queue_ahead_plan.h),
  // gathered; nullopt when backfill would not plan it (another scheduler, a
  // job not waiting for resources or in a reservation, no shape).
  std::optional<QueueAheadPlan> PlanQueueAhead(const wire::JobRecord& job, int64_t now) const;

  std::shared_ptr<const conf::ClusterConfig> config_;
  // The main pass, and backfill or not and how (see UseSchedulingPolicy).
  sched::SchedulingPolicy scheduling_policy_ = sched::PolicyOf(*config_);
  NodeTable nodes_;
  NodeEventTracker node_events_;                 // Nodes out of service, for accounting
  JobTable jobs_;                                // Records, payloads and job ids
  AccountingPolicy accounting_{config_, jobs_};  // rotadbd's table, AccountingStorageEnforce
  JobPriorities priorities_{config_, accounting_, jobs_};  // Factors, fair-share, recomputation
  RuntimeForecasts forecasts_;                             // Users' runtimes, how plans turned out
  SchedStats stats_;
  // Job control: starts, ends, signals, timers, node reports, steps, the
  // wake-up time. It is the JobLifecycle the objects below change jobs
  // through; it holds a reference to preemption_, constructed after it.
  JobControl control_{{config_, jobs_, nodes_, node_events_, accounting_, priorities_, preemption_,
                       forecasts_, stats_}};
  GangPass gang_{jobs_, nodes_, control_};  // PreemptMode=GANG: the slices, and their passes
  Preemption preemption_{jobs_, nodes_, control_};             // Displaced jobs, held nodes
  AdvanceReservations reservations_{jobs_, nodes_, control_};  // Their table and windows
  // The main and backfill passes (and what lives between backfill passes);
  // last, as it holds references to the parts above.
  SchedulingCycle cycle_{{scheduling_policy_, jobs_, nodes_, accounting_, priorities_.ledger(),
                          reservations_, preemption_, gang_, stats_, control_}};
};

}  // namespace rota::ctld
