// ControllerCore's time-driven work (Tick, the timers that end or warn
// jobs) and how a job starts (StartOn); the passes are scheduling_cycle.h.
#include <fmt/format.h>

#include <algorithm>
#include <csignal>

#include "common/hostlist.h"
#include "common/strings.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/controller_core.h"
#include "ctld/core/dependency_check.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_script_env.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/limit_check.h"
#include "ctld/core/partition_cpu_cap.h"
#include "ctld/core/queue_order.h"
#include "model/dependency.h"
#include "model/index_set.h"
#include "model/job_state.h"
#include "model/pending_reason.h"
#include "sched/select.h"

namespace rota::ctld {
void ControllerCore::Tick(int64_t now, Effects& effects) {
  SweepTimers(now, effects);
  RecomputePriorities(now, effects);
  CheckNodeLiveness(now, effects);
  preemption_.ResumeDisplaced(now, effects);  // Before anything else may take their resources
  gang_.Tick(*config_, now, effects);
  reservations_.Expire(now, effects);
  cycle_.Run(now, effects);
}

std::optional<int64_t> ControllerCore::TimeLimitKillTime(const wire::JobRecord& job) const {
  // The partition's OverTimeLimit, else the cluster's.
  DurationSecs over = config_->settings.over_time_limit;
  if (const conf::PartitionConfig* p = config_->FindPartition(job.spec().partition());
      p != nullptr && p->over_time_limit) {
    over = *p->over_time_limit;
  }
  if (over == kInfiniteDuration) return std::nullopt;
  return job.end_time() + over;
}

void ControllerCore::SweepTimers(int64_t now, Effects& effects) {
  std::vector<uint32_t> expired;
  std::vector<uint32_t> warn;
  std::vector<uint32_t> old;
  std::vector<uint32_t> displaced;     // Preempted, their GraceTime over
  std::vector<uint32_t> mail_due;      // A time-limit mail to send
  std::vector<uint32_t> prolog_again;  // PrologSlurmctld asked before a restart
  std::vector<uint32_t> gpus_idle;     // GpuIdlePolicy's cancel or requeue due
  next_wake_.reset();
  for (const auto& [id, job] : jobs_) {
    switch (job->state()) {
      case wire::JOB_STATE_RUNNING:
        if (job->preempt_kill_time() > 0) {
          if (now >= job->preempt_kill_time()) {
            displaced.push_back(id);
            break;
          }
          NoteWake(job->preempt_kill_time());
        }
        if (job->prolog_slurmctld_running() && prologs_in_flight_.count(id) == 0) {
          prolog_again.push_back(id);
        }
        if (job->gpu_idle_action_at() > 0) {
          if (now >= job->gpu_idle_action_at()) {
            gpus_idle.push_back(id);
            break;
          }
          NoteWake(job->gpu_idle_action_at());
        }
        if (job->time_limit_s() < 0 || job->timed_out()) break;
        if (job->spec().mail_type() != 0) {  // --mail-type=TIME_LIMIT*
          std::optional<int64_t> next_mail;
          if (!DueTimeLimitMails(*job, now, &next_mail).empty()) mail_due.push_back(id);
          if (next_mail) NoteWake(*next_mail);
        }
        if (std::optional<int64_t> t = WarnTime(*job)) {
          if (now >= *t) {
            warn.push_back(id);
          } else {
            NoteWake(*t);
          }
        }
        if (std::optional<int64_t> kill = TimeLimitKillTime(*job)) {
          if (now >= *kill) {
            expired.push_back(id);
          } else {
            NoteWake(*kill);
          }
        }
        break;
      case wire::JOB_STATE_PENDING:
        if (job->spec().begin_time() > now) NoteWake(job->spec().begin_time());
        break;
      default:
        if (!model::IsFinished(job->state())) break;
        if (job->end_time() + config_->settings.min_job_age <= now) {
          old.push_back(id);
        } else {
          NoteWake(job->end_time() + config_->settings.min_job_age);
        }
    }
  }
  for (uint32_t id : warn) SendWarning(id, effects);
  // A controller that restarted while a PrologSlurmctld ran has lost it: it
  // runs again, and the launch waits for that one.
  for (uint32_t id : prolog_again) {
    if (config_->settings.prolog_slurmctld.empty()) {
      PrologSlurmctldDone(id, jobs_.at(id)->restart_count(), true, now, effects);
      continue;
    }
    AddPrologSlurmctld(*jobs_.at(id), config_->settings, effects);
    prologs_in_flight_.insert(id);
  }
  for (uint32_t id : mail_due) {
    wire::JobRecord& j = Mutable(id);
    for (model::MailEvent event : DueTimeLimitMails(j, now)) {
      AddJobMail(j, event, now, config_->settings.cluster_name, effects);
      j.set_mail_sent(j.mail_sent() | event);
    }
    Persist(j, effects);
  }
  for (uint32_t id : displaced) preemption_.StopDisplaced(Mutable(id), now, effects);
  for (uint32_t id : gpus_idle) ActOnIdleGpus(id, now, effects);
  for (uint32_t id : expired) {
    // The node daemon sends SIGTERM, then SIGKILL after KillWait; the job is
    // COMPLETING (TIMEOUT to come, as Slurm shows it) until the node reports
    // that it is gone.
    wire::JobRecord& j = Mutable(id);
    j.set_timed_out(true);
    effects.signals.push_back({id, {j.nodes().begin(), j.nodes().end()}, SIGTERM, false, true});
    BeginCompleting(j, wire::JOB_STATE_TIMEOUT, now, effects);
  }
  for (uint32_t id : old) {
    jobs_.Erase(id);
    effects.records.emplace_back().set_job_purge(id);
  }
}

uint32_t ControllerCore::SplitArrayTask(uint32_t meta_id, std::optional<uint32_t> task,
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

uint32_t ControllerCore::StartOn(uint32_t job_id, const sched::Allocation& allocation, int64_t now,
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
  effects.launches.push_back({jobs_.at(id), FindPayload(job)});
  return id;
}

}  // namespace rota::ctld
