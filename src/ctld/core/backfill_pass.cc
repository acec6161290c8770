// The backfill pass of SchedulingCycle (SchedulerType=sched/backfill): the
// controller's side of sched::PlanBackfill. It gathers the running
// allocations' ends and the pending jobs the main pass left waiting for
// resources, lets the planner decide, starts what it may start and records
// the other jobs' planned start and nodes for squeue --start and scontrol.
#include <algorithm>
#include <map>
#include <memory>

#include "common/hostlist.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/backfill_inputs.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/license_pool.h"
#include "ctld/core/partition_cpu_cap.h"
#include "ctld/core/queue_order.h"
#include "ctld/core/runtime_forecasts.h"
#include "ctld/core/scheduling_cycle.h"
#include "model/pending_reason.h"
#include "sched/availability_profile.h"
#include "sched/backfill.h"
#include "sched/limit_check.h"
#include "sched/reserved_windows.h"

namespace rota::ctld {
namespace {

bool HoldsResources(wire::JobState s) {
  return s == wire::JOB_STATE_RUNNING || s == wire::JOB_STATE_SUSPENDED ||
         s == wire::JOB_STATE_COMPLETING;
}

}  // namespace

sched::AvailabilityProfile SchedulingCycle::BackfillProfile(int64_t now) const {
  const sched::ClusterModel& model = p_.nodes.model();
  sched::AvailabilityProfile profile(model, p_.nodes.usage(), now, p_.policy.resolution_s);
  const bool predictions = p_.policy.predict_runtime;
  for (const auto& [id, live] : p_.jobs.live()) {
    const JobTable::Ptr& job = *live;
    if (!HoldsResources(job->state()) || job->allocs_size() != job->nodes_size()) continue;
    sched::Allocation held;
    for (int i = 0; i < job->nodes_size(); ++i) {
      int32_t node = model.IndexOf(job->nodes(i));
      if (node >= 0)
        held.nodes.push_back(FromRecord(model, static_cast<uint32_t>(node), job->allocs(i)));
    }
    profile.AddRelease(PlannedEnd(*job, now, predictions), held);
  }
  sched::BlockReserved(p_.reservations.windows(), profile);  // Jobs below belong to no reservation
  return profile;
}

void SchedulingCycle::BackfillPass(int64_t now, Effects& effects) {
  const sched::SchedulingPolicy& policy = p_.policy;
  if (!policy.backfill) return;

  std::vector<const wire::JobRecord*> queue;
  std::vector<uint32_t> stale;  // Planned once, now waiting for something else
  // The live jobs include every job with a plan (JobTable::PruneFinished).
  for (const auto& [id, live] : p_.jobs.live()) {
    const JobTable::Ptr& job = *live;
    // A reservation's jobs start only in the main pass, on their nodes.
    if (WaitsForResources(*job) && job->spec().reservation().empty()) {
      queue.push_back(job.get());
    } else if (job->sched_start_time() != 0 || !job->sched_nodes().empty()) {
      stale.push_back(id);
    }
  }
  for (uint32_t id : stale) {
    wire::JobRecord& j = p_.jobs.Mutable(id);
    j.clear_sched_start_time();
    j.clear_sched_nodes();
  }
  if (queue.empty()) return;
  if (int64_t next = 0; !backfill_.Due(now, policy.interval_s, &next)) {
    p_.lifecycle.NoteWake(next);
    return;
  }
  backfill_.PassBegins(now);
  const int64_t pass_began = p_.stats.Now();
  if (policy.interval_s > 0) p_.lifecycle.NoteWake(now + policy.interval_s);
  SortQueue(queue, config());

  const sched::ClusterModel& model = p_.nodes.model();
  // Each partition's usable nodes once; its index names it for the planner.
  std::map<const conf::PartitionConfig*, std::unique_ptr<std::vector<uint32_t>>> candidates;
  std::map<const conf::PartitionConfig*, PartitionCpuCap> caps;  // Partitions with MaxCPUsPerNode
  std::vector<sched::BackfillJob> jobs;
  jobs.reserve(queue.size());
  LicensePool licenses = LicensesInUse(config(), p_.jobs);
  for (const wire::JobRecord* j : queue) {
    const conf::PartitionConfig* partition = config().FindPartition(j->spec().partition());
    if (partition == nullptr) continue;
    if (!licenses.Available(j->spec())) continue;  // Reason Licenses, from the main pass
    if (sched::gang::RowsOf(config(), *partition) > 0) continue;  // Time-sliced: the main pass's
    Result<JobShape> shape = p_.jobs.ShapeOf(*j, *partition, config(), model);
    if (!shape.ok() || !shape->partition_reason.empty()) continue;
    auto [it, fresh] = candidates.try_emplace(partition);
    if (fresh) {
      it->second =
          std::make_unique<std::vector<uint32_t>>(p_.nodes.CandidatesIn(*partition).usable);
      p_.preemption.DropHeld(0, *it->second);  // Kept for a preemptor: never backfilled
      if (partition->max_cpus_per_node != conf::kUnlimitedCount) {
        // MaxCPUsPerNode: nodes where the partition holds all it may are out.
        PartitionCpuCap& cap = caps.try_emplace(partition, *partition, model).first->second;
        for (const auto& [id, live] : p_.jobs.live()) cap.Count(**live);
        cap.DropFullNodes(*it->second);
      }
    }
    jobs.push_back(BackfillJobOf(*j, std::move(*shape), it->second.get(),
                                 static_cast<uint32_t>(partition - config().partitions.data()),
                                 policy, now));
  }

  // bf_max_time (default bf_interval) of the controller's monotonic clock;
  // none when either is 0 (a simulator or test without a clock).
  const DurationSecs max_time = policy.max_time_s.value_or(policy.interval_s);
  // A pass that cannot start anything would only plan reservations to show
  // (and, cut by bf_max_time, carry some): skipped when asked to.
  if (backfill_.only_to_start && max_time == 0 &&
      !sched::SomeJobMayStartNow(model, p_.nodes.usage(), jobs)) {
    return;
  }
  sched::AvailabilityProfile profile = BackfillProfile(now);

  // bf_continue: the jobs the last pass, cut by bf_max_time, went through
  // are not tried again (unless nothing else is left); they keep the
  // reservations it made.
  if (policy.carry_on) backfill_.MarkCarried(jobs);
  sched::BackfillControl control;
  if (max_time > 0) {
    const uint64_t budget_us = static_cast<uint64_t>(max_time) * 1'000'000;
    control.time_is_up = [this, pass_began, budget_us] {
      return p_.stats.Since(pass_began) >= budget_us;
    };
  }
  sched::BackfillResult plan = sched::PlanBackfill(model, profile, jobs, policy.plan, control);
  backfill_.KeepResume(plan, jobs, policy.carry_on);
  std::unique_ptr<sched::LimitUsage> usage =
      p_.accounting.RunningUsage(p_.ledger, now);  // Null unless limits are enforced
  for (sched::BackfillDecision& d : plan.decisions) {
    auto it = p_.jobs.find(d.id);
    if (it == p_.jobs.end() || it->second->state() != wire::JOB_STATE_PENDING) continue;
    if (d.outcome == sched::BackfillOutcome::kStartNow) {
      // Jobs started in this pass count against the limits of the next.
      if (model::PendingReason limit = p_.accounting.LimitReason(usage.get(), *it->second)) {
        p_.jobs.Mutable(d.id).set_reason(limit.text());
        continue;
      }
      // The plan does not know MaxCPUsPerNode: a start that would pass it waits.
      auto cap = caps.find(config().FindPartition(it->second->spec().partition()));
      if (cap != caps.end()) {
        if (!cap->second.Exceeding(d.allocation).empty()) continue;
        cap->second.Add(d.allocation);
      }
      // Nor do licenses: those of the jobs started before it in this pass count.
      if (!licenses.Available(it->second->spec())) continue;
      licenses.Take(it->second->spec());
      p_.accounting.CountStarted(usage.get(), *it->second);
      p_.lifecycle.StartOn(d.id, d.allocation, now, effects, /*launch=*/true);
      p_.stats.JobBackfilled();
      continue;
    }
    if (backfill_.only_to_start) continue;  // No one reads the plan
    int64_t start = 0;
    std::string where;
    if (d.outcome == sched::BackfillOutcome::kReserved) {
      start = d.start;
      std::vector<std::string> names;
      for (const sched::NodeAllocation& a : d.allocation.nodes) {
        names.push_back(model.nodes[a.node].name);
      }
      where = CompressHostlist(names);
    }
    const wire::JobRecord& job = *it->second;
    const bool first_plan = start > 0 && job.first_planned_at() == 0;
    if (job.sched_start_time() == start && job.sched_nodes() == where && !first_plan) continue;
    wire::JobRecord& m = p_.jobs.Mutable(d.id);
    m.set_sched_start_time(start);
    m.set_sched_nodes(where);
    RuntimeForecasts::NotePlanned(m, start, now);
  }
  p_.stats.RecordBackfillCycle(now, p_.stats.Since(pass_began), plan.considered, plan.tested,
                               queue.size(), profile.booking_count());
}

std::vector<const wire::JobRecord*> SchedulingCycle::BackfillQueue() const {
  std::vector<const wire::JobRecord*> queue;
  for (const auto& [id, live] : p_.jobs.live()) {
    const JobTable::Ptr& other = *live;
    if (WaitsForResources(*other) && other->spec().reservation().empty()) {
      queue.push_back(other.get());
    }
  }
  SortQueue(queue, config());
  return queue;
}

}  // namespace rota::ctld
