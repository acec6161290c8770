// JobControl's timers: one walk over the jobs finds the time limits
// reached, the warnings, mails and GpuIdlePolicy actions due, the GraceTimes
// over, the PrologSlurmctld runs a restart lost, and the finished jobs past
// MinJobAge, and notes when the next of them is due.
#include <algorithm>
#include <csignal>

#include "common/duration.h"
#include "ctld/core/job_control.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_script_env.h"
#include "model/job_state.h"

namespace rota::ctld {

std::optional<int64_t> JobControl::TimeLimitKillTime(const wire::JobRecord& job) const {
  // The partition's OverTimeLimit, else the cluster's.
  DurationSecs over = config_->settings.over_time_limit;
  if (const conf::PartitionConfig* p = config_->FindPartition(job.spec().partition());
      p != nullptr && p->over_time_limit) {
    over = *p->over_time_limit;
  }
  if (over == kInfiniteDuration) return std::nullopt;
  return job.end_time() + over;
}

void JobControl::SweepTimers(int64_t now, Effects& effects) {
  std::vector<uint32_t> expired;
  std::vector<uint32_t> warn;
  std::vector<uint32_t> old;
  std::vector<uint32_t> displaced;     // Preempted, their GraceTime over
  std::vector<uint32_t> mail_due;      // A time-limit mail to send
  std::vector<uint32_t> prolog_again;  // PrologSlurmctld asked before a restart
  std::vector<uint32_t> gpus_idle;     // GpuIdlePolicy's cancel or requeue due
  next_wake_.reset();
  // Only the live jobs have timers; the finished ones wait in order of their
  // end for MinJobAge to pass.
  jobs_.PruneFinished();
  for (const auto& [id, live] : jobs_.live()) {
    const JobTable::Ptr& job = *live;
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
        // Finished and still live: a backfill plan is left on it to clear
        // (JobTable::PruneFinished). Purged all the same, as the others.
        if (!model::IsFinished(job->state())) break;
        if (job->end_time() + config_->settings.min_job_age <= now) {
          old.push_back(id);
        } else {
          NoteWake(job->end_time() + config_->settings.min_job_age);
        }
    }
  }
  for (uint32_t id : jobs_.TakeFinishedBy(now - config_->settings.min_job_age)) old.push_back(id);
  if (std::optional<int64_t> next = jobs_.NextFinishedEnd()) {
    NoteWake(*next + config_->settings.min_job_age);
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

}  // namespace rota::ctld
