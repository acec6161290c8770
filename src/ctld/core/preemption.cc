// Preemption (preemption.h): carrying out sched::ChoosePreemptees' choice.
#include "ctld/core/preemption.h"

#include <csignal>

#include "common/strings.h"
#include "conf/preempt_mode.h"
#include "ctld/core/allocation_record.h"
#include "ctld/core/job_shape.h"
#include "model/job_state.h"
#include "sched/preempt_policy.h"
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

// The job's QoS; null when the table does not know it.
const QosPolicy* QosOf(const PolicyTable& policy, const wire::JobRecord& job) {
  return policy.FindQos(JobQos(job.spec()));
}

// What the preemption policy reads of a job.
sched::PreemptJob PreemptJobOf(const wire::JobRecord& job) {
  return {job.spec().partition(), JobQos(job.spec())};
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

bool Preemption::TryPreempt(uint32_t job_id, int64_t now, Effects& effects) {
  std::unique_ptr<sched::PreemptPolicy> policy =
      sched::MakePreemptPolicy(lifecycle_.config(), lifecycle_.policy());
  const wire::JobRecord& pending = *jobs_.at(job_id);
  // An array's pending tasks share one record; they never displace others.
  if (policy == nullptr || pending.array_meta() || !policy->MayPreemptAny(PreemptJobOf(pending)))
    return false;
  const conf::PartitionConfig* partition =
      lifecycle_.config().FindPartition(pending.spec().partition());
  if (partition == nullptr) return false;

  std::vector<sched::PreemptCandidate> preemptable;
  for (const auto& [id, job] : jobs_) {
    if (job->preempted_by() == job_id && HoldsNodes(*job)) {
      return true;  // Its resources are on their way.
    }
    if (job->state() != wire::JOB_STATE_RUNNING || job->preempted_by() != 0) continue;
    PreemptAction action = policy->ActionFor(PreemptJobOf(pending), PreemptJobOf(*job));
    if (action == PreemptAction::kOff) continue;
    const int64_t exempt = PreemptExemptTimeOf(*job);
    if (exempt == kInfiniteDuration || now - job->start_time() < exempt) continue;
    preemptable.push_back({id, job->priority(), job->start_time(),
                           AllocationOf(nodes_.model(), *job, action == PreemptAction::kSuspend)});
  }

  std::optional<sched::PreemptPlan> plan;
  if (!preemptable.empty()) {
    Result<JobShape> shape =
        jobs_.ShapeOf(pending, *partition, lifecycle_.config(), nodes_.model());
    if (shape.ok()) {
      shape->request.switches_wait_over =
          shape->switches_wait_s >= 0 && now - pending.eligible_time() >= shape->switches_wait_s;
      std::vector<uint32_t> usable = nodes_.CandidatesIn(*partition).usable;
      holds_.Drop(job_id, usable);
      plan = sched::ChoosePreemptees(nodes_.model(), nodes_.usage(), usable, shape->request,
                                     std::move(preemptable),
                                     lifecycle_.config().settings.scheduler.preempt_youngest_first);
    }
  }
  if (!plan) {
    // Nothing (more) to displace: a hold from an earlier plan is let go.
    if (pending.preempt_nodes_size() > 0) {
      wire::JobRecord& j = jobs_.Mutable(job_id);
      j.clear_preempt_nodes();
      lifecycle_.Persist(j, effects);
    }
    return false;
  }
  for (uint32_t victim : plan->victims) DisplaceJob(victim, job_id, now, effects);
  wire::JobRecord& j = jobs_.Mutable(job_id);
  j.clear_preempt_nodes();
  for (const sched::NodeAllocation& a : plan->allocation.nodes) {
    j.add_preempt_nodes(nodes_.model().nodes[a.node].name);
  }
  lifecycle_.Persist(j, effects);
  holds_.Note(j, nodes_.model());
  return true;
}

int64_t Preemption::PreemptExemptTimeOf(const wire::JobRecord& job) const {
  // The job's QoS's PreemptExemptTime overrides the cluster's (as Slurm).
  if (lifecycle_.policy() != nullptr) {
    const QosPolicy* qos = QosOf(*lifecycle_.policy(), job);
    if (qos != nullptr && qos->preempt_exempt_time_s) return *qos->preempt_exempt_time_s;
  }
  return lifecycle_.config().settings.preempt_exempt_time;
}

conf::PreemptAction Preemption::ActionAgainst(const wire::JobRecord& victim) const {
  std::unique_ptr<sched::PreemptPolicy> policy =
      sched::MakePreemptPolicy(lifecycle_.config(), lifecycle_.policy());
  auto it = jobs_.find(victim.preempted_by());
  // Chosen under another configuration: ended rather than lost.
  if (policy == nullptr || it == jobs_.end()) return PreemptAction::kCancel;
  PreemptAction action = policy->ActionFor(PreemptJobOf(*it->second), PreemptJobOf(victim));
  return action == PreemptAction::kOff ? PreemptAction::kCancel : action;
}

void Preemption::DisplaceJob(uint32_t victim, uint32_t for_job, int64_t now, Effects& effects) {
  wire::JobRecord& job = jobs_.Mutable(victim);
  job.set_preempt_time(now);
  job.set_preempted_by(for_job);
  const conf::PartitionConfig* partition =
      lifecycle_.config().FindPartition(job.spec().partition());
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
    lifecycle_.Persist(job, effects);
    return;
  }
  // The victim's partition's GraceTime; under preempt/qos its QoS's, as Slurm.
  int64_t grace = partition ? partition->grace_time : 0;
  if (lifecycle_.config().settings.preempt_type == conf::kPreemptQos &&
      lifecycle_.policy() != nullptr) {
    const QosPolicy* qos = QosOf(*lifecycle_.policy(), job);
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
    lifecycle_.SendWarning(victim, effects);
  } else {
    effects.signals.push_back({victim, nodes, SIGTERM, false, false});
  }
  wire::JobRecord& warned = jobs_.Mutable(victim);
  warned.set_preempt_kill_time(now + grace);
  lifecycle_.NoteWake(now + grace);
  lifecycle_.Persist(warned, effects);
}

void Preemption::StopDisplaced(wire::JobRecord& job, int64_t now, Effects& effects) {
  job.clear_preempt_kill_time();
  bool requeue = job.requeue() && ActionAgainst(job) == PreemptAction::kRequeue;
  effects.signals.push_back(
      {job.job_id(), {job.nodes().begin(), job.nodes().end()}, SIGTERM, false, true});
  // REQUEUED: back to the queue once its node is clean (NodeCleanedUp), the
  // attempt recorded as PREEMPTED.
  lifecycle_.BeginCompleting(job, requeue ? wire::JOB_STATE_REQUEUED : wire::JOB_STATE_PREEMPTED,
                             now, effects);
  jobs_.Touch();
}

void Preemption::ResumeDisplaced(int64_t now, Effects& effects) {
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
    wire::JobRecord& j = jobs_.Mutable(id);
    nodes_.Release(j);
    *j.mutable_allocs() = j.suspended_allocs();
    j.clear_suspended_allocs();
    nodes_.Allocate(j);
    lifecycle_.ResumeJob(j, now, effects);
  }
}

}  // namespace rota::ctld
