// JobControl's part of GPU idle flags (docs/gpu-efficiency.md): the node
// daemon's reports, the end of a flag when the job stops running, and the
// partition policy's cancel or requeue.
#include <signal.h>

#include <algorithm>

#include "ctld/core/accounting_records.h"
#include "ctld/core/gpu_idle.h"
#include "ctld/core/job_control.h"

namespace rota::ctld {
namespace {

const conf::GpuIdlePolicy& PolicyOf(const conf::ClusterConfig& config, const wire::JobRecord& job) {
  static const conf::GpuIdlePolicy kDefault;
  const conf::PartitionConfig* p = config.FindPartition(job.spec().partition());
  return p != nullptr ? p->gpu_idle : kDefault;
}

}  // namespace

Status JobControl::GpuIdleReported(const wire::JobGpuIdleRequest& report, int64_t now,
                                   Effects& effects) {
  auto it = jobs_.find(report.job_id());
  if (it == jobs_.end()) return NotFound("Invalid job id specified");
  const wire::JobRecord& current = *it->second;
  // Another run's, or a job that stopped running meanwhile (a suspended
  // job's GPUs are idle by design).
  if (current.state() != wire::JOB_STATE_RUNNING || current.restart_count() != report.run()) {
    return Status::Ok();
  }
  // Only a node that holds some of the job's GPUs judges them.
  const auto& nodes = current.nodes();
  const auto at = std::find(nodes.begin(), nodes.end(), report.node());
  if (at == nodes.end() || JobGpusAt(current, static_cast<int>(at - nodes.begin())) == 0) {
    return Status::Ok();
  }
  wire::JobRecord& job = Mutable(report.job_id());
  if (!NoteNodeGpuIdle(job, report)) return Status::Ok();
  // Flagged once the GPUs are idle on every node, unflagged once busy on one.
  const std::optional<WholeJobGpuIdle> idle = JobGpusIdle(job);
  const bool flagged = job.gpu_idle_since() > 0;
  if (!idle) {
    if (flagged) UnflagGpuIdle(job, now, effects);
  } else if (!flagged) {
    const conf::GpuIdlePolicy& policy = PolicyOf(*config_, job);
    job.set_gpu_idle_since(idle->since > 0 ? idle->since : now);
    job.set_gpu_idle_util(idle->util_pct);
    const bool acts = policy.action == conf::GpuIdlePolicy::Action::kCancel ||
                      policy.action == conf::GpuIdlePolicy::Action::kRequeue;
    job.set_gpu_idle_action_at(acts ? now + policy.grace_s : 0);
    effects.node_events.push_back(GpuIdleEvent(job, policy, config_->settings.cluster_name, 0));
    if (policy.action != conf::GpuIdlePolicy::Action::kNone) {
      effects.mails.push_back(GpuIdleMail(job, policy, config_->settings.cluster_name));
    }
    if (acts) NoteWake(job.gpu_idle_action_at());
  }
  Persist(job, effects);
  jobs_.Touch();
  return Status::Ok();
}

void JobControl::UnflagGpuIdle(wire::JobRecord& job, int64_t now, Effects& effects) {
  if (job.gpu_idle_since() <= 0) return;
  effects.node_events.push_back(
      GpuIdleEvent(job, PolicyOf(*config_, job), config_->settings.cluster_name, now));
  job.clear_gpu_idle_since();
  job.clear_gpu_idle_util();
  job.clear_gpu_idle_action_at();
}

void JobControl::EndGpuIdle(wire::JobRecord& job, int64_t now, Effects& effects) {
  job.clear_gpu_idle_nodes();  // A later run is judged afresh
  UnflagGpuIdle(job, now, effects);
}

std::vector<wire::GpuShare> JobControl::GpuSharesOn(const std::string& node) const {
  std::vector<wire::GpuShare> shares;
  const NodeRuntime* n = nodes_.Find(node);
  // Most heartbeats stop here: no job holds a GPU share on the node, so there
  // is no job to scan for.
  if (n == nullptr || n->gpu_share_jobs == 0) return shares;
  for (const auto& [id, live] : jobs_.live()) {
    const JobTable::Ptr& job = *live;
    if (job->state() != wire::JOB_STATE_RUNNING || job->nodes_size() < 2) continue;
    // The first node's rotad watches the job's GPUs from the batch launch.
    for (int i = 1; i < job->nodes_size() && i < job->allocs_size(); ++i) {
      if (job->nodes(i) != node || job->allocs(i).gpu_ids().empty()) continue;
      wire::GpuShare& share = shares.emplace_back();
      share.set_job_id(id);
      share.set_run(job->restart_count());
      share.set_gpu_ids(job->allocs(i).gpu_ids());
      share.set_partition(job->spec().partition());
    }
  }
  return shares;
}

void JobControl::ActOnIdleGpus(uint32_t job_id, int64_t now, Effects& effects) {
  wire::JobRecord& job = Mutable(job_id);
  const conf::GpuIdlePolicy& policy = PolicyOf(*config_, job);
  const bool requeue = policy.action == conf::GpuIdlePolicy::Action::kRequeue && job.requeue() &&
                       !job.spec().interactive();
  // As scancel and scontrol requeue do: SIGTERM, SIGKILL after KillWait;
  // COMPLETING until the node reports the job gone.
  effects.signals.push_back(
      {job_id, {job.nodes().begin(), job.nodes().end()}, SIGTERM, false, /*terminate=*/true});
  if (requeue) {
    BeginCompleting(job, wire::JOB_STATE_REQUEUED, now, effects);
    return;
  }
  // A job that may not be requeued is cancelled, as the controller's own act.
  job.set_cancel_requested(true);
  NoteCancelledBy(job, 0);
  BeginCompleting(job, wire::JOB_STATE_CANCELLED, now, effects);
}

}  // namespace rota::ctld
