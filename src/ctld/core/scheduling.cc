// The main scheduling pass and the time-driven work of ControllerCore.
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
  SchedulePass(now, effects);
}

LicensePool ControllerCore::LicensesInUse() const {
  LicensePool pool(config_->settings.licenses);
  if (!config_->settings.licenses.empty()) {
    for (const auto& [id, job] : jobs_) pool.Count(*job);
  }
  return pool;
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

bool ControllerCore::KilledForInvalidDependency(const wire::JobRecord& job,
                                                const model::PendingReason& reason) const {
  if (reason.code() != model::reason::kDependencyNeverSatisfied) return false;
  const int32_t asked = job.spec().kill_on_invalid_dep();  // 0: the cluster decides
  return asked == 1 || (asked == 0 && config_->settings.scheduler.kill_invalid_depend);
}

model::PendingReason ControllerCore::DependencyReason(const wire::JobRecord& job,
                                                      int64_t now) const {
  return DependencyReasonOf(jobs_, job, now);
}

uint32_t ControllerCore::RunningArrayTasks(uint32_t array_job_id) const {
  uint32_t n = 0;
  for (const auto& [id, job] : jobs_) {
    if (job->array_job_id() == array_job_id && !job->array_meta() &&
        (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED)) {
      ++n;
    }
  }
  return n;
}

bool ControllerCore::TryStart(uint32_t job_id, int64_t now, Effects& effects,
                              model::PendingReason* reason) {
  const wire::JobRecord& pending = *jobs_.at(job_id);
  const conf::PartitionConfig* partition = config_->FindPartition(pending.spec().partition());
  Result<JobShape> shape = jobs_.ShapeOf(pending, *partition, *config_, nodes_.model());
  if (!shape.ok()) {
    *reason = model::reason::kPartitionConfig;
    return false;
  }
  sched::Request& req = shape->request;
  // --switches=N@T: after T pending, take what the topology offers.
  req.switches_wait_over =
      shape->switches_wait_s >= 0 && now - pending.eligible_time() >= shape->switches_wait_s;
  NodeTable::Candidates c = nodes_.CandidatesIn(*partition);
  preemption_.DropHeld(job_id, c.usable);
  const bool maint = reservations_.FilterReserved(pending, now, c.usable);
  if (sched::gang::RowsOf(*config_, *partition) > 0) {  // Time-sliced: shares cores with other rows
    if (gang_.TryStart(*config_, job_id, req, c.usable, now, effects)) return true;
    *reason = maint ? model::reason::kReservedForMaintenance : model::reason::kResources;
    return false;
  }
  // MaxCPUsPerNode: what the partition's jobs hold now, this pass's starts included.
  PartitionCpuCap cap(*partition, nodes_.model());
  if (cap.capped()) {
    for (const auto& [id, job] : jobs_) cap.Count(*job);
  }
  sched::Selection selection =
      cap.capped() ? SelectWithinCap(nodes_.model(), nodes_.usage(), c.usable, req, cap)
                   : sched::Select(nodes_.model(), nodes_.usage(), c.usable, req);
  if (!selection.allocation) {
    if (maint) {
      *reason = model::reason::kReservedForMaintenance;
      return false;
    }
    bool required_down = std::any_of(req.required_nodes.begin(), req.required_nodes.end(),
                                     [&](uint32_t n) { return !nodes_.nodes()[n].Usable(); });
    bool blocked_by_down = !c.unavailable.empty() && (c.usable.empty() || required_down);
    *reason = blocked_by_down ? model::PendingReason::WithDetail(
                                    model::reason::kReqNodeNotAvail,
                                    "UnavailableNodes:" + CompressHostlist(c.unavailable))
                              : model::PendingReason(model::reason::kResources);
    return false;
  }

  StartOn(job_id, *selection.allocation, now, effects);
  return true;
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

void ControllerCore::SchedulePass(int64_t now, Effects& effects) {
  const int64_t pass_began = stats_.Now();
  std::vector<const wire::JobRecord*> queue;
  preemption_.ClearHolds();
  for (const auto& [id, job] : jobs_) {
    // Held jobs (priority 0) keep their reason and need no place in the order.
    if (job->state() == wire::JOB_STATE_PENDING && job->priority() != 0) {
      queue.push_back(job.get());
      if (job->preempt_nodes_size() > 0) preemption_.NoteHold(*job);
    }
  }
  SortQueue(queue, *config_);

  // Partitions by name, looked up once per run of equal names (the queue is
  // mostly one partition), and whether a job of theirs could not start.
  const std::vector<conf::PartitionConfig>& partitions = config_->partitions;
  std::vector<bool> blocked(partitions.size(), false);
  const conf::PartitionConfig* last_partition = nullptr;
  // QoS and association limits (null unless enforced): running jobs, and
  // those started in this pass.
  std::unique_ptr<LimitUsage> usage = accounting_.RunningUsage(usage_ledger(), now);
  LicensePool licenses = LicensesInUse();
  for (const wire::JobRecord* queued : queue) {
    const uint32_t id = queued->job_id();
    // Records in `queue` stay alive for the pass (a published view or jobs_
    // holds them). Only the job being decided changes, and what is read of
    // it after a change (limits, node counts, array fields) is not what
    // changed; so the pass reads it here without looking it up again.
    const wire::JobRecord& job = *queued;
    if (job.state() != wire::JOB_STATE_PENDING) continue;
    auto set_reason = [&](std::string_view reason) {
      if (job.reason() != reason) Mutable(id).set_reason(std::string(reason));
    };
    const wire::JobSpec& spec = job.spec();
    const conf::PartitionConfig* partition = last_partition;
    if (partition == nullptr || partition->name != spec.partition()) {
      partition = config_->FindPartition(spec.partition());
      if (partition != nullptr) last_partition = partition;
    }
    if (spec.deadline() > 0 && now > spec.deadline()) {
      wire::JobRecord& j = Mutable(id);
      j.set_reason(std::string(model::reason::kDeadline));
      j.set_state(wire::JOB_STATE_DEADLINE);
      j.set_end_time(now);
      Persist(j, effects);
      continue;
    }
    if (spec.begin_time() > now) {
      set_reason(model::reason::kBeginTime);
      continue;
    }
    if (!spec.reservation().empty()) {
      if (model::PendingReason wait = reservations_.WaitReason(job, now)) {
        set_reason(wait.text());
        continue;
      }
    }
    if (model::PendingReason dep = DependencyReason(job, now)) {
      if (KilledForInvalidDependency(job, dep)) {
        // Slurm's kill_invalid_depend: the job ends CANCELLED, keeping the
        // reason that says why.
        wire::JobRecord& j = Mutable(id);
        j.set_reason(std::string(model::reason::kDependencyNeverSatisfied));
        j.set_state(wire::JOB_STATE_CANCELLED);
        j.set_end_time(now);
        AddJobMail(j, model::kMailInvalidDepend, now, config_->settings.cluster_name, effects);
        if (std::optional<model::MailEvent> mail = EndMailEvent(j, j.state())) {
          AddJobMail(j, *mail, now, config_->settings.cluster_name, effects);
        }
        Persist(j, effects);
        continue;
      }
      set_reason(dep.text());
      continue;
    }
    if (!job.dependency_state().empty()) {
      wire::JobRecord& j = Mutable(id);
      j.clear_dependency_state();
      Persist(j, effects);
    }
    if (partition == nullptr) {
      set_reason(model::reason::kPartitionConfig);
      continue;
    }
    if (partition->state == "DOWN" || partition->state == "DRAIN") {
      set_reason(model::reason::kPartitionDown);
      continue;
    }
    if (partition->state == "INACTIVE") {
      set_reason(model::reason::kPartitionInactive);
      continue;
    }
    bool over_time = partition->max_time != kInfiniteDuration &&
                     (job.time_limit_s() < 0 || job.time_limit_s() > partition->max_time);
    if (over_time) {
      set_reason(model::reason::kPartitionTimeLimit);
      continue;
    }
    if (partition->max_nodes != conf::kUnlimitedCount && job.req_nodes() > partition->max_nodes) {
      set_reason(model::reason::kPartitionNodeLimit);
      continue;
    }
    if (job.req_nodes() > partition->nodes.size()) {
      set_reason(model::reason::kPartitionConfig);
      continue;
    }
    // A job held by a limit is skipped: it does not block its partition.
    if (model::PendingReason held = accounting_.LimitReason(usage.get(), job)) {
      set_reason(held.text());
      continue;
    }
    // Nor does a job waiting for licenses, as in Slurm.
    if (!licenses.Available(spec)) {
      set_reason(model::reason::kLicenses);
      continue;
    }
    // A job that displaced others is tried even behind a blocked job: the
    // nodes held for it would otherwise stay idle.
    if (blocked[static_cast<size_t>(partition - partitions.data())] &&
        job.preempt_nodes_size() == 0) {
      set_reason(model::reason::kPriority);
      continue;
    }
    // An array starts as many tasks as fit (and its %N limit allows).
    bool is_array = job.array_meta();
    uint32_t running = is_array ? RunningArrayTasks(id) : 0;
    uint32_t limit = job.array_max_running();
    uint32_t started = 0;
    while (true) {
      auto it = jobs_.find(id);
      if (it == jobs_.end() || it->second->state() != wire::JOB_STATE_PENDING) break;
      if (is_array && !it->second->array_meta()) break;
      if (is_array && limit > 0 && running >= limit) {
        set_reason(model::reason::kJobArrayTaskLimit);
        break;
      }
      // The array's next task, after the ones started in this pass.
      if (model::PendingReason held = started > 0
                                          ? accounting_.LimitReason(usage.get(), *it->second)
                                          : model::PendingReason()) {
        set_reason(held.text());
        break;
      }
      if (started > 0 && !licenses.Available(spec)) {
        set_reason(model::reason::kLicenses);
        break;
      }
      model::PendingReason reason;
      if (!TryStart(id, now, effects, &reason)) {
        // Under preemption it waits (Resources) while displaced jobs leave.
        if (reason == model::reason::kResources) preemption_.TryPreempt(id, now, effects);
        set_reason(reason.text());
        // A reservation's job waits on its own nodes: it holds back no one else.
        if (spec.reservation().empty())
          blocked[static_cast<size_t>(partition - partitions.data())] = true;
        break;
      }
      ++running;
      ++started;
      licenses.Take(spec);
      accounting_.CountStarted(usage.get(), *it->second);
      if (!is_array) break;
    }
  }
  stats_.RecordMainCycle(stats_.Since(pass_began), queue.size(), queue.size());
  BackfillPass(now, effects);
}

}  // namespace rota::ctld
