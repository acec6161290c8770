#include "ctld/core/gang_pass.h"

#include <algorithm>
#include <csignal>
#include <cstdint>

#include "conf/preempt_mode.h"
#include "ctld/core/allocation_record.h"
#include "model/pending_reason.h"
#include "sched/select.h"

namespace rota::ctld {
namespace {

bool IsRunningMember(const wire::JobRecord& j) {
  return j.gang_row() > 0 && j.state() == wire::JOB_STATE_RUNNING;
}

// Suspended by the time-slicing: not by an administrator nor a preemptor.
bool IsWaitingMember(const wire::JobRecord& j) {
  return j.gang_row() > 0 && j.state() == wire::JOB_STATE_SUSPENDED && !j.suspended_by_admin() &&
         j.preempted_by() == 0;
}

// The job's cores and GPUs: what it runs with, or ran with before it was
// suspended (its allocs then hold only its memory).
sched::Allocation FullAllocation(const sched::ClusterModel& model, const wire::JobRecord& job) {
  const auto& allocs = job.state() == wire::JOB_STATE_SUSPENDED && job.suspended_allocs_size() > 0
                           ? job.suspended_allocs()
                           : job.allocs();
  sched::Allocation a;
  for (int i = 0; i < job.nodes_size() && i < allocs.size(); ++i) {
    int32_t node = model.IndexOf(job.nodes(i));
    if (node >= 0) a.nodes.push_back(FromRecord(model, static_cast<uint32_t>(node), allocs.Get(i)));
  }
  return a;
}

// While suspended the job keeps its memory: its allocs hold only that.
void KeepMemoryOnly(wire::JobRecord& job) {
  *job.mutable_suspended_allocs() = job.allocs();
  for (wire::NodeAlloc& a : *job.mutable_allocs()) {
    wire::NodeAlloc kept;
    kept.set_mem_mb(a.mem_mb());
    a = kept;
  }
}

sched::NodeAllocation WithoutMemory(sched::NodeAllocation a) {
  a.mem_mb = 0;
  return a;
}

// The members of `partition`'s time-slicing, by job id. `Jobs`: the core's
// map of job id to record pointer.
template <typename Jobs>
std::vector<sched::gang::Member> MembersOf(const Jobs& jobs, const sched::ClusterModel& model,
                                           const std::string& partition) {
  std::vector<sched::gang::Member> members;
  for (const auto& [id, job] : jobs) {
    if (!IsRunningMember(*job) && !IsWaitingMember(*job)) continue;
    if (job->spec().partition() != partition) continue;
    members.push_back({id, job->gang_row() - 1, FullAllocation(model, *job)});
  }
  return members;
}

}  // namespace

void GangPass::Tick(const conf::ClusterConfig& config, int64_t now, Effects& effects) {
  if (!conf::GangEnabled(config)) {
    slices_.clear();
    return;
  }
  // Ended before its first turn: no node has anything of it to clean up.
  std::vector<uint32_t> never_launched;
  for (const auto& [id, job] : jobs_) {
    if (job->gang_launch_pending() && job->state() == wire::JOB_STATE_COMPLETING) {
      never_launched.push_back(id);
    }
  }
  for (uint32_t id : never_launched) {
    const std::vector<std::string> nodes(jobs_.at(id)->completing_nodes().begin(),
                                         jobs_.at(id)->completing_nodes().end());
    for (const std::string& node : nodes) {
      if (jobs_.at(id)->state() == wire::JOB_STATE_COMPLETING) {
        lifecycle_.NodeCleanedUp(jobs_.Mutable(id), node, now, effects);
      }
    }
  }
  const sched::ClusterModel& model = nodes_.model();
  for (const conf::PartitionConfig& partition : config.partitions) {
    const uint32_t rows = sched::gang::RowsOf(config, partition);
    if (rows == 0) continue;
    std::vector<sched::gang::Member> members = MembersOf(jobs_, model, partition.name);
    sched::gang::PartitionSlice& slice = slices_[partition.name];
    if (members.empty()) {
      slice = {};
      continue;
    }
    if (slice.next_switch == 0) {
      // No slice running (or a restart): the turn is the running jobs' row.
      auto running = std::find_if(
          members.begin(), members.end(),
          [&](const sched::gang::Member& m) { return IsRunningMember(*jobs_.at(m.job_id)); });
      slice.row = (running != members.end() ? *running : members.front()).row;
    }
    const bool switching = slice.next_switch != 0 && now >= slice.next_switch;
    if (switching) slice.row = sched::gang::NextRow(members, slice.row, rows);
    slice.row = std::min(slice.row, rows - 1);
    // At a switch the slice's row takes over; within a slice those running
    // keep running, and only jobs that share nothing with them join.
    std::vector<uint32_t> keep;
    if (!switching) {
      for (const sched::gang::Member& m : members) {
        if (IsRunningMember(*jobs_.at(m.job_id))) keep.push_back(m.job_id);
      }
    }
    const std::vector<uint32_t> run = sched::gang::RunningSet(members, slice.row, rows, keep);
    auto runs = [&](uint32_t id) { return std::binary_search(run.begin(), run.end(), id); };

    // Those whose turn is over stop first: the others find their cores free.
    for (const sched::gang::Member& m : members) {
      if (runs(m.job_id) || !IsRunningMember(*jobs_.at(m.job_id))) continue;
      wire::JobRecord& j = jobs_.Mutable(m.job_id);
      effects.signals.push_back(
          {m.job_id, {j.nodes().begin(), j.nodes().end()}, SIGSTOP, false, false});
      nodes_.Release(j);
      KeepMemoryOnly(j);
      nodes_.Allocate(j);
      j.set_state(wire::JOB_STATE_SUSPENDED);
      j.set_suspend_time(now);
      jobs_.Touch();
      lifecycle_.Persist(j, effects);
    }
    bool any_waiting = false;
    for (const sched::gang::Member& m : members) {
      const wire::JobRecord& current = *jobs_.at(m.job_id);
      if (!IsWaitingMember(current)) continue;
      if (!runs(m.job_id)) {
        any_waiting = true;
        continue;
      }
      // Everything it had must be free (a job of another partition may have
      // taken part of it meanwhile: it waits for the next slice).
      bool fits = true;
      for (int i = 0; i < current.nodes_size() && i < current.suspended_allocs_size(); ++i) {
        int32_t node = model.IndexOf(current.nodes(i));
        if (node < 0 || i >= current.allocs_size()) continue;
        sched::NodeUsage u = nodes_.usage()[static_cast<size_t>(node)];
        sched::NodeAllocation kept =
            FromRecord(model, static_cast<uint32_t>(node), current.allocs(i));
        sched::NodeAllocation full =
            FromRecord(model, static_cast<uint32_t>(node), current.suspended_allocs(i));
        fits &= sched::GiveBack(model, u, kept) && sched::Take(model, u, full);
      }
      if (!fits) {
        any_waiting = true;
        continue;
      }
      wire::JobRecord& j = jobs_.Mutable(m.job_id);
      nodes_.Release(j);
      *j.mutable_allocs() = j.suspended_allocs();
      j.clear_suspended_allocs();
      nodes_.Allocate(j);
      if (!j.gang_launch_pending()) {
        lifecycle_.ResumeJob(j, now, effects);
        continue;
      }
      // Its first turn: the batch script starts now, with its whole limit.
      j.set_gang_launch_pending(false);
      j.set_state(wire::JOB_STATE_RUNNING);
      j.clear_suspend_time();
      j.set_start_time(now);
      j.set_end_time(j.time_limit_s() >= 0 ? now + j.time_limit_s() : 0);
      lifecycle_.NoteWake(j.end_time());
      jobs_.Touch();
      lifecycle_.Persist(j, effects);
      effects.launches.push_back({jobs_.at(m.job_id), jobs_.FindPayload(*jobs_.at(m.job_id))});
    }
    if (!any_waiting) {
      slice.next_switch = 0;  // Nobody waits for a turn: no slicing
      continue;
    }
    if (switching || slice.next_switch == 0) {
      slice.next_switch = now + std::max<int64_t>(1, config.settings.scheduler_time_slice);
    }
    lifecycle_.NoteWake(slice.next_switch);
  }
}

bool GangPass::TryStart(const conf::ClusterConfig& config, uint32_t job_id,
                        const sched::Request& request, const std::vector<uint32_t>& usable,
                        int64_t now, Effects& effects) {
  const wire::JobRecord& pending = *jobs_.at(job_id);
  const conf::PartitionConfig* partition = config.FindPartition(pending.spec().partition());
  if (partition == nullptr) return false;
  const uint32_t rows = sched::gang::RowsOf(config, *partition);
  const sched::ClusterModel& model = nodes_.model();
  std::vector<sched::gang::Member> members = MembersOf(jobs_, model, partition->name);
  for (uint32_t row = 0; row < rows; ++row) {
    // What row `row` leaves free: the other rows' running jobs give their
    // cores and GPUs back, its own waiting jobs take theirs. Memory stays as
    // it is: a suspended job keeps its own.
    std::vector<sched::NodeUsage> usage = nodes_.usage();
    for (const sched::gang::Member& m : members) {
      const bool running = IsRunningMember(*jobs_.at(m.job_id));
      if (running == (m.row == row)) continue;
      for (const sched::NodeAllocation& a : m.allocation.nodes) {
        if (running) {
          sched::GiveBack(model, usage[a.node], WithoutMemory(a));
        } else {
          sched::Take(model, usage[a.node], WithoutMemory(a));
        }
      }
    }
    sched::Selection selection = sched::Select(model, usage, usable, request);
    if (!selection.allocation) continue;

    // It runs now when it shares nothing with the jobs running now; else it
    // waits for its turn.
    sched::gang::PartitionSlice& slice = slices_[partition->name];
    bool runs_now = true;
    for (const sched::gang::Member& m : members) {
      if (IsRunningMember(*jobs_.at(m.job_id)) &&
          sched::gang::Overlap(m.allocation, *selection.allocation)) {
        runs_now = false;
      }
    }
    if (runs_now) {
      // Fits what is free now, too: the running jobs hold none of it.
      for (const sched::NodeAllocation& a : selection.allocation->nodes) {
        sched::NodeUsage u = nodes_.usage()[a.node];
        runs_now &= sched::Take(model, u, a);
      }
    }
    if (runs_now) {
      uint32_t id =
          lifecycle_.StartOn(job_id, *selection.allocation, now, effects, /*launch=*/true);
      wire::JobRecord& j = jobs_.Mutable(id);
      j.set_gang_row(row + 1);
      lifecycle_.Persist(j, effects);
      return true;
    }
    // Its resources are its own from now on, but its cores and GPUs are
    // another's until its turn: it holds only its memory, and its script is
    // launched then (Tick).
    uint32_t id = lifecycle_.StartOn(job_id, *selection.allocation, now, effects, /*launch=*/false);
    wire::JobRecord& j = jobs_.Mutable(id);
    KeepMemoryOnly(j);
    nodes_.Allocate(j);
    j.set_gang_row(row + 1);
    j.set_gang_launch_pending(true);
    j.set_state(wire::JOB_STATE_SUSPENDED);
    j.set_suspend_time(now);
    jobs_.Touch();
    lifecycle_.Persist(j, effects);
    if (slice.next_switch == 0) {
      slice.next_switch = now + std::max<int64_t>(1, config.settings.scheduler_time_slice);
    }
    lifecycle_.NoteWake(slice.next_switch);
    return true;
  }
  return false;
}

void GangPass::ClockStepped(const std::function<int64_t(int64_t)>& moved) {
  for (auto& [partition, slice] : slices_) slice.next_switch = moved(slice.next_switch);
}

}  // namespace rota::ctld
