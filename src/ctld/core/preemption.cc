// Preemption in ControllerCore (PreemptType=preempt/partition_prio): a pending
// job that does not fit displaces running jobs of partitions with a lower
// PriorityTier. Which ones is sched::ChoosePreemptees' decision; this file
// carries it out: warn, wait GraceTime, then requeue, cancel or suspend, and
// keep the freed nodes for the preemptor until it starts.
#include <csignal>

#include "common/strings.h"
#include "conf/preempt_mode.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/controller_core.h"
#include "ctld/core/job_shape.h"
#include "ctld/core/preempt_policy.h"
#include "model/job_state.h"
#include "sched/preempt_select.h"

namespace rota::ctld {
namespace {

using conf::PreemptAction;

bool HoldsNodes(const wire::JobRecord& job) {
  return job.state() == wire::JOB_STATE_RUNNING || job.state() == wire::JOB_STATE_COMPLETING;
}

// The job's allocation as the selection sees it; `keep_memory`: without its
// memory (a suspended job keeps that).
sched::Allocation AllocationOf(const sched::ClusterModel& model, const wire::JobRecord& job,
                               bool keep_memory) {
  sched::Allocation a;
  for (int i = 0; i < job.nodes_size() && i < job.allocs_size(); ++i) {
    int32_t node = model.IndexOf(job.nodes(i));
    if (node < 0) continue;
    sched::NodeAllocation n = FromRecord(model, static_cast<uint32_t>(node), job.allocs(i));
    if (keep_memory) n.mem_mb = 0;
    a.nodes.push_back(std::move(n));
  }
  return a;
}

// A suspended job keeps only its memory: the allocs it holds meanwhile.
void KeepOnlyMemory(wire::JobRecord& job) {
  *job.mutable_suspended_allocs() = job.allocs();
  for (wire::NodeAlloc& a : *job.mutable_allocs()) {
    wire::NodeAlloc kept;
    kept.set_mem_mb(a.mem_mb());
    a = kept;
  }
}

}  // namespace

bool ControllerCore::TryPreempt(uint32_t job_id, int64_t now, Effects& effects) {
  std::unique_ptr<PreemptPolicy> policy = MakePreemptPolicy(*config_, policy_.get());
  const wire::JobRecord& pending = *jobs_.at(job_id);
  // An array's pending tasks share one record; they never displace others.
  if (policy == nullptr || pending.array_meta() || !policy->MayPreemptAny(pending)) return false;
  const conf::PartitionConfig* partition = config_->FindPartition(pending.spec().partition());
  if (partition == nullptr) return false;

  std::vector<sched::PreemptCandidate> preemptable;
  for (const auto& [id, job] : jobs_) {
    if (job->preempted_by() == job_id && HoldsNodes(*job)) {
      return true;  // Its resources are on their way.
    }
    if (job->state() != wire::JOB_STATE_RUNNING || job->preempted_by() != 0) continue;
    PreemptAction action = policy->ActionFor(pending, *job);
    if (action == PreemptAction::kOff) continue;
    const int64_t exempt = PreemptExemptTimeOf(*job);
    if (exempt == kInfiniteDuration || now - job->start_time() < exempt) continue;
    preemptable.push_back({id, job->priority(), job->start_time(),
                           AllocationOf(nodes_.model(), *job, action == PreemptAction::kSuspend)});
  }

  std::optional<sched::PreemptPlan> plan;
  if (!preemptable.empty()) {
    Result<JobShape> shape = jobs_.ShapeOf(pending, *partition, *config_, nodes_.model());
    if (shape.ok()) {
      shape->request.switches_wait_over =
          shape->switches_wait_s >= 0 && now - pending.eligible_time() >= shape->switches_wait_s;
      std::vector<uint32_t> usable = CandidatesFor(*partition).usable;
      preempt_holds_.Drop(job_id, usable);
      plan = sched::ChoosePreemptees(nodes_.model(), nodes_.usage(), usable, shape->request,
                                     std::move(preemptable));
    }
  }
  if (!plan) {
    // Nothing (more) to displace: a hold from an earlier plan is let go.
    if (pending.preempt_nodes_size() > 0) {
      wire::JobRecord& j = Mutable(job_id);
      j.clear_preempt_nodes();
      Persist(j, effects);
    }
    return false;
  }
  for (uint32_t victim : plan->victims) DisplaceJob(victim, job_id, now, effects);
  wire::JobRecord& j = Mutable(job_id);
  j.clear_preempt_nodes();
  for (const sched::NodeAllocation& a : plan->allocation.nodes) {
    j.add_preempt_nodes(nodes_.model().nodes[a.node].name);
  }
  Persist(j, effects);
  preempt_holds_.Note(j, nodes_.model());
  return true;
}

int64_t ControllerCore::PreemptExemptTimeOf(const wire::JobRecord& job) const {
  // The job's QoS's PreemptExemptTime overrides the cluster's (as Slurm).
  if (policy_ != nullptr) {
    const QosPolicy* qos = policy_->FindQos(job.spec().qos().empty() ? "normal" : job.spec().qos());
    if (qos != nullptr && qos->preempt_exempt_time_s) return *qos->preempt_exempt_time_s;
  }
  return config_->settings.preempt_exempt_time;
}

conf::PreemptAction ControllerCore::ActionAgainst(const wire::JobRecord& victim) const {
  std::unique_ptr<PreemptPolicy> policy = MakePreemptPolicy(*config_, policy_.get());
  auto it = jobs_.find(victim.preempted_by());
  // Chosen under another configuration: ended rather than lost.
  if (policy == nullptr || it == jobs_.end()) return PreemptAction::kCancel;
  PreemptAction action = policy->ActionFor(*it->second, victim);
  return action == PreemptAction::kOff ? PreemptAction::kCancel : action;
}

void ControllerCore::DisplaceJob(uint32_t victim, uint32_t for_job, int64_t now, Effects& effects) {
  wire::JobRecord& job = Mutable(victim);
  job.set_preempt_time(now);
  job.set_preempted_by(for_job);
  const conf::PartitionConfig* partition = config_->FindPartition(job.spec().partition());
  PreemptAction action = ActionAgainst(job);
  std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  if (action == PreemptAction::kSuspend) {
    // The processes stop where they are; CPUs and GPUs go to the preemptor,
    // the memory stays the suspended job's (so do the GPUs' own memory).
    effects.signals.push_back({victim, nodes, SIGSTOP, false, false});
    nodes_.Release(job);
    KeepOnlyMemory(job);
    nodes_.Allocate(job);
    job.set_state(wire::JOB_STATE_SUSPENDED);
    job.set_suspend_time(now);
    maybe_suspended_ = true;
    jobs_.Touch();
    Persist(job, effects);
    return;
  }
  // The victim's partition's GraceTime; under preempt/qos its QoS's, as Slurm.
  int64_t grace = partition ? partition->grace_time : 0;
  if (config_->settings.preempt_type == conf::kPreemptQos && policy_ != nullptr) {
    const QosPolicy* qos = policy_->FindQos(job.spec().qos().empty() ? "normal" : job.spec().qos());
    grace = qos != nullptr ? qos->grace_time_s : 0;
  }
  if (grace <= 0) {
    StopDisplaced(job, now, effects);
    return;
  }
  // The job may save its work: woken if stopped, then told with its own
  // --signal when it asked for one, SIGTERM otherwise.
  effects.signals.push_back({victim, nodes, SIGCONT, false, false});
  if (!job.spec().signal().empty() && !job.warned()) {
    SendWarning(victim, effects);
  } else {
    effects.signals.push_back({victim, nodes, SIGTERM, false, false});
  }
  wire::JobRecord& warned = Mutable(victim);
  warned.set_preempt_kill_time(now + grace);
  NoteWake(now + grace);
  Persist(warned, effects);
}

void ControllerCore::StopDisplaced(wire::JobRecord& job, int64_t now, Effects& effects) {
  job.clear_preempt_kill_time();
  bool requeue = job.requeue() && ActionAgainst(job) == PreemptAction::kRequeue;
  effects.signals.push_back(
      {job.job_id(), {job.nodes().begin(), job.nodes().end()}, SIGTERM, false, true});
  // REQUEUED: back to the queue once its node is clean (NodeCleanedUp), the
  // attempt recorded as PREEMPTED.
  BeginCompleting(job, requeue ? wire::JOB_STATE_REQUEUED : wire::JOB_STATE_PREEMPTED, now,
                  effects);
  jobs_.Touch();
}

void ControllerCore::ResumeDisplaced(int64_t now, Effects& effects) {
  if (!maybe_suspended_) return;
  bool any = false;
  std::vector<uint32_t> ready;
  for (const auto& [id, job] : jobs_) {
    if (job->state() != wire::JOB_STATE_SUSPENDED) continue;
    any = true;
    if (job->suspended_by_admin() || job->preempted_by() == 0) continue;
    // The preemptor still needs what it took while it waits to start (its
    // hold), runs, is suspended or completes; not once it ended, left or was
    // requeued.
    auto it = jobs_.find(job->preempted_by());
    bool needed = false;
    if (it != jobs_.end()) {
      const wire::JobRecord& preemptor = *it->second;
      needed = preemptor.state() == wire::JOB_STATE_PENDING ? preemptor.preempt_nodes_size() > 0
                                                            : !model::IsFinished(preemptor.state());
    }
    if (!needed) ready.push_back(id);
  }
  maybe_suspended_ = any;
  for (uint32_t id : ready) {
    const wire::JobRecord& job = *jobs_.at(id);
    // Everything it had must be free again (another job may have taken part).
    const sched::ClusterModel& model = nodes_.model();
    bool fits = true;
    for (int i = 0; i < job.nodes_size() && i < job.suspended_allocs_size(); ++i) {
      int32_t node = model.IndexOf(job.nodes(i));
      if (node < 0 || i >= job.allocs_size()) continue;
      sched::NodeUsage u = nodes_.usage()[static_cast<size_t>(node)];
      sched::NodeAllocation kept = FromRecord(model, static_cast<uint32_t>(node), job.allocs(i));
      sched::NodeAllocation full =
          FromRecord(model, static_cast<uint32_t>(node), job.suspended_allocs(i));
      fits &= sched::GiveBack(model, u, kept) && sched::Take(model, u, full);
    }
    if (!fits) continue;
    wire::JobRecord& j = Mutable(id);
    nodes_.Release(j);
    *j.mutable_allocs() = j.suspended_allocs();
    j.clear_suspended_allocs();
    nodes_.Allocate(j);
    ResumeJob(j, now, effects);
  }
}

void ControllerCore::ResumeJob(wire::JobRecord& job, int64_t now, Effects& effects) {
  effects.signals.push_back(
      {job.job_id(), {job.nodes().begin(), job.nodes().end()}, SIGCONT, false, false});
  // The time limit counts running time: the end moves by the time suspended.
  if (job.end_time() > 0 && job.suspend_time() > 0) {
    job.set_end_time(job.end_time() + (now - job.suspend_time()));
    NoteWake(job.end_time());
  }
  if (job.suspend_time() > 0) {
    job.set_suspended_s(job.suspended_s() + std::max<int64_t>(0, now - job.suspend_time()));
  }
  job.set_state(wire::JOB_STATE_RUNNING);
  job.clear_suspend_time();
  job.clear_preempted_by();
  job.set_suspended_by_admin(false);
  jobs_.Touch();
  Persist(job, effects);
}

std::string ControllerCore::AdminSuspend(uint32_t job_id, bool suspend, int64_t now,
                                         Effects& effects) {
  const wire::JobRecord& current = *jobs_.at(job_id);
  if (suspend) {
    if (current.state() != wire::JOB_STATE_RUNNING) return "Job is not running";
    // An administrator's suspension keeps the whole allocation: the job
    // resumes exactly where it was.
    wire::JobRecord& j = Mutable(job_id);
    effects.signals.push_back(
        {job_id, {j.nodes().begin(), j.nodes().end()}, SIGSTOP, false, false});
    j.set_state(wire::JOB_STATE_SUSPENDED);
    j.set_suspend_time(now);
    j.set_suspended_by_admin(true);
    maybe_suspended_ = true;
    jobs_.Touch();
    Persist(j, effects);
    return "";
  }
  if (current.state() != wire::JOB_STATE_SUSPENDED) return "Job is not suspended";
  if (!current.suspended_by_admin()) return "Job was suspended by preemption";
  ResumeJob(Mutable(job_id), now, effects);
  return "";
}

}  // namespace rota::ctld
