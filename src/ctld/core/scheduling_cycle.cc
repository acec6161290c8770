// The main pass of SchedulingCycle (scheduling_cycle.h).
#include "ctld/core/scheduling_cycle.h"

#include <algorithm>

#include "common/hostlist.h"
#include "ctld/core/dependency_check.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/partition_cpu_cap.h"
#include "ctld/core/queue_order.h"
#include "model/job_state.h"
#include "sched/limit_check.h"
#include "sched/select.h"

namespace rota::ctld {

void SchedulingCycle::Run(int64_t now, Effects& effects) {
  MainPass(now, effects);
  BackfillPass(now, effects);
}

bool SchedulingCycle::KilledForInvalidDependency(const wire::JobRecord& job,
                                                 const model::PendingReason& reason) const {
  if (reason.code() != model::reason::kDependencyNeverSatisfied) return false;
  const int32_t asked = job.spec().kill_on_invalid_dep();  // 0: the cluster decides
  return asked == 1 || (asked == 0 && config().settings.scheduler.kill_invalid_depend);
}

uint32_t SchedulingCycle::RunningArrayTasks(uint32_t array_job_id) const {
  uint32_t n = 0;
  for (const auto& [id, job] : p_.jobs) {
    if (job->array_job_id() == array_job_id && !job->array_meta() &&
        (job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED)) {
      ++n;
    }
  }
  return n;
}

bool SchedulingCycle::TryStart(uint32_t job_id, int64_t now, Effects& effects,
                               model::PendingReason* reason) {
  const wire::JobRecord& pending = *p_.jobs.at(job_id);
  const conf::PartitionConfig* partition = config().FindPartition(pending.spec().partition());
  Result<JobShape> shape = p_.jobs.ShapeOf(pending, *partition, config(), p_.nodes.model());
  if (!shape.ok()) {
    *reason = model::reason::kPartitionConfig;
    return false;
  }
  sched::Request& req = shape->request;
  // --switches=N@T: after T pending, take what the topology offers.
  req.switches_wait_over =
      shape->switches_wait_s >= 0 && now - pending.eligible_time() >= shape->switches_wait_s;
  NodeTable::Candidates c = p_.nodes.CandidatesIn(*partition);
  p_.preemption.DropHeld(job_id, c.usable);
  const bool maint = p_.reservations.FilterReserved(pending, now, c.usable);
  if (sched::gang::RowsOf(config(), *partition) > 0) {  // Time-sliced: shares cores with other rows
    if (p_.gang.TryStart(config(), job_id, req, c.usable, now, effects)) return true;
    *reason = maint ? model::reason::kReservedForMaintenance : model::reason::kResources;
    return false;
  }
  // MaxCPUsPerNode: what the partition's jobs hold now, this pass's starts included.
  PartitionCpuCap cap(*partition, p_.nodes.model());
  if (cap.capped()) {
    for (const auto& [id, job] : p_.jobs) cap.Count(*job);
  }
  sched::Selection selection =
      cap.capped() ? SelectWithinCap(p_.nodes.model(), p_.nodes.usage(), c.usable, req, cap)
                   : sched::Select(p_.nodes.model(), p_.nodes.usage(), c.usable, req);
  if (!selection.allocation) {
    if (maint) {
      *reason = model::reason::kReservedForMaintenance;
      return false;
    }
    bool required_down = std::any_of(req.required_nodes.begin(), req.required_nodes.end(),
                                     [&](uint32_t n) { return !p_.nodes.nodes()[n].Usable(); });
    bool blocked_by_down = !c.unavailable.empty() && (c.usable.empty() || required_down);
    *reason = blocked_by_down ? model::PendingReason::WithDetail(
                                    model::reason::kReqNodeNotAvail,
                                    "UnavailableNodes:" + CompressHostlist(c.unavailable))
                              : model::PendingReason(model::reason::kResources);
    return false;
  }

  p_.core.StartOn(job_id, *selection.allocation, now, effects, /*launch=*/true);
  return true;
}

void SchedulingCycle::MainPass(int64_t now, Effects& effects) {
  const int64_t pass_began = p_.stats.Now();
  std::vector<const wire::JobRecord*> queue;
  p_.preemption.ClearHolds();
  for (const auto& [id, job] : p_.jobs) {
    // Held jobs (priority 0) keep their reason and need no place in the order.
    if (job->state() == wire::JOB_STATE_PENDING && job->priority() != 0) {
      queue.push_back(job.get());
      if (job->preempt_nodes_size() > 0) p_.preemption.NoteHold(*job);
    }
  }
  SortQueue(queue, config());

  // Partitions by name, looked up once per run of equal names (the queue is
  // mostly one partition), and whether a job of theirs could not start.
  const std::vector<conf::PartitionConfig>& partitions = config().partitions;
  std::vector<bool> blocked(partitions.size(), false);
  const conf::PartitionConfig* last_partition = nullptr;
  // QoS and association limits (null unless enforced): running jobs, and
  // those started in this pass.
  std::unique_ptr<sched::LimitUsage> usage = p_.accounting.RunningUsage(p_.ledger, now);
  LicensePool licenses = LicensesInUse(config(), p_.jobs);
  for (const wire::JobRecord* queued : queue) {
    const uint32_t id = queued->job_id();
    // Records in `queue` stay alive for the pass (a published view or jobs_
    // holds them). Only the job being decided changes, and what is read of
    // it after a change (limits, node counts, array fields) is not what
    // changed; so the pass reads it here without looking it up again.
    const wire::JobRecord& job = *queued;
    if (job.state() != wire::JOB_STATE_PENDING) continue;
    auto set_reason = [&](std::string_view reason) {
      if (job.reason() != reason) p_.jobs.Mutable(id).set_reason(std::string(reason));
    };
    const wire::JobSpec& spec = job.spec();
    const conf::PartitionConfig* partition = last_partition;
    if (partition == nullptr || partition->name != spec.partition()) {
      partition = config().FindPartition(spec.partition());
      if (partition != nullptr) last_partition = partition;
    }
    if (spec.deadline() > 0 && now > spec.deadline()) {
      wire::JobRecord& j = p_.jobs.Mutable(id);
      j.set_reason(std::string(model::reason::kDeadline));
      j.set_state(wire::JOB_STATE_DEADLINE);
      j.set_end_time(now);
      p_.core.Persist(j, effects);
      continue;
    }
    if (spec.begin_time() > now) {
      set_reason(model::reason::kBeginTime);
      continue;
    }
    if (!spec.reservation().empty()) {
      if (model::PendingReason wait = p_.reservations.WaitReason(job, now)) {
        set_reason(wait.text());
        continue;
      }
    }
    if (model::PendingReason dep = DependencyReasonOf(p_.jobs, job, now)) {
      if (KilledForInvalidDependency(job, dep)) {
        // Slurm's kill_invalid_depend: the job ends CANCELLED, keeping the
        // reason that says why.
        wire::JobRecord& j = p_.jobs.Mutable(id);
        j.set_reason(std::string(model::reason::kDependencyNeverSatisfied));
        j.set_state(wire::JOB_STATE_CANCELLED);
        j.set_end_time(now);
        AddJobMail(j, model::kMailInvalidDepend, now, config().settings.cluster_name, effects);
        if (std::optional<model::MailEvent> mail = EndMailEvent(j, j.state())) {
          AddJobMail(j, *mail, now, config().settings.cluster_name, effects);
        }
        p_.core.Persist(j, effects);
        continue;
      }
      set_reason(dep.text());
      continue;
    }
    if (!job.dependency_state().empty()) {
      wire::JobRecord& j = p_.jobs.Mutable(id);
      j.clear_dependency_state();
      p_.core.Persist(j, effects);
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
    if (model::PendingReason held = p_.accounting.LimitReason(usage.get(), job)) {
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
      auto it = p_.jobs.find(id);
      if (it == p_.jobs.end() || it->second->state() != wire::JOB_STATE_PENDING) break;
      if (is_array && !it->second->array_meta()) break;
      if (is_array && limit > 0 && running >= limit) {
        set_reason(model::reason::kJobArrayTaskLimit);
        break;
      }
      // The array's next task, after the ones started in this pass.
      if (model::PendingReason held = started > 0
                                          ? p_.accounting.LimitReason(usage.get(), *it->second)
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
        if (reason == model::reason::kResources) p_.preemption.TryPreempt(id, now, effects);
        set_reason(reason.text());
        // A reservation's job waits on its own nodes: it holds back no one else.
        if (spec.reservation().empty())
          blocked[static_cast<size_t>(partition - partitions.data())] = true;
        break;
      }
      ++running;
      ++started;
      licenses.Take(spec);
      p_.accounting.CountStarted(usage.get(), *it->second);
      if (!is_array) break;
    }
  }
  p_.stats.RecordMainCycle(p_.stats.Since(pass_began), queue.size(), queue.size());
}

}  // namespace rota::ctld
