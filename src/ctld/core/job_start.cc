// How a job starts (JobControl::StartOn): its record takes the allocation,
// its nodes' resources are taken, and its launch (or first its
// PrologSlurmctld) is asked for. The passes that choose it are
// scheduling_cycle.h.
#include "ctld/core/allocation_record.h"
#include "ctld/core/job_control.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_script_env.h"
#include "model/index_set.h"
#include "model/pending_reason.h"

namespace rota::ctld {

uint32_t JobControl::SplitArrayTask(uint32_t meta_id, std::optional<uint32_t> task,
                                    Effects& effects) {
  wire::JobRecord& meta = Mutable(meta_id);
  model::IndexSet pending = model::IndexSet::Parse(meta.array_pending()).value_or({});
  uint32_t task_id = task ? *task : *pending.first();
  pending.Erase(task_id);
  if (pending.empty()) {  // The last task: the meta record becomes it, as in Slurm.
    meta.set_array_meta(false);
    meta.set_array_task_id(task_id);
    meta.clear_array_pending();
    return meta_id;
  }
  meta.set_array_pending(pending.ToString());
  Persist(meta, effects);
  wire::JobRecord split = meta;
  split.set_job_id(jobs_.AllocateId());
  split.set_array_meta(false);
  split.set_array_task_id(task_id);
  split.clear_array_pending();
  uint32_t id = split.job_id();
  jobs_.Insert(std::move(split));
  return id;
}

uint32_t JobControl::StartOn(uint32_t job_id, const sched::Allocation& allocation, int64_t now,
                             Effects& effects, bool launch) {
  const wire::JobRecord& pending = *jobs_.at(job_id);
  uint32_t id = pending.array_meta() ? SplitArrayTask(job_id, std::nullopt, effects) : job_id;
  if (id != job_id) {
    // The array's first plan was this task's; the next task is planned afresh.
    wire::JobRecord& rest = Mutable(job_id);
    rest.clear_first_planned_start();
    rest.clear_first_planned_at();
  }
  wire::JobRecord& job = Mutable(id);
  forecasts_.Started(job, now);
  RecordAllocation(nodes_.model(), allocation, job);
  job.clear_sched_start_time();
  job.clear_sched_nodes();
  job.clear_preempt_nodes();
  job.clear_gang_row();  // GangPass::TryStart gives the row of its own jobs
  job.clear_gang_launch_pending();
  job.set_state(wire::JOB_STATE_RUNNING);
  job.set_reason(std::string(model::reason::kNone));
  job.set_start_time(now);
  job.set_end_time(job.time_limit_s() >= 0 ? now + job.time_limit_s() : 0);
  NoteWake(job.end_time());
  job.set_last_sched_eval(now);
  job.set_timed_out(false);
  job.set_cancel_requested(false);
  job.set_warned(false);
  job.clear_mail_sent();
  if (std::optional<int64_t> warn = WarnTime(job)) NoteWake(*warn);
  AddJobMail(job, model::kMailBegin, now, config_->settings.cluster_name, effects);
  stats_.JobStarted();
  if (!launch) return id;  // The caller takes the resources, persists and launches
  nodes_.Allocate(job);
  job.set_prolog_slurmctld_running(!config_->settings.prolog_slurmctld.empty());
  Persist(job, effects);
  if (job.prolog_slurmctld_running()) {
    // The launch waits for PrologSlurmctld (PrologSlurmctldDone).
    AddPrologSlurmctld(job, config_->settings, effects);
    prologs_in_flight_.insert(id);
    return id;
  }
  effects.launches.push_back({jobs_.at(id), jobs_.FindPayload(job)});
  return id;
}

}  // namespace rota::ctld
