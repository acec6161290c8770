#include "ctld/core/gpu_idle.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>

#include "ctld/core/job_script_env.h"
#include "model/index_set.h"

namespace rota::ctld {

size_t JobGpusAt(const wire::JobRecord& job, int i) {
  if (i < 0 || i >= job.allocs_size()) return 0;
  return model::IndexSet::Parse(job.allocs(i).gpu_ids()).value_or(model::IndexSet{}).size();
}

bool NoteNodeGpuIdle(wire::JobRecord& job, const wire::JobGpuIdleRequest& report) {
  auto* nodes = job.mutable_gpu_idle_nodes();
  auto it = std::find_if(nodes->begin(), nodes->end(),
                         [&](const wire::GpuIdleNode& n) { return n.node() == report.node(); });
  if (!report.idle()) {
    if (it == nodes->end()) return false;
    nodes->erase(it);
    return true;
  }
  const bool added = it == nodes->end();
  wire::GpuIdleNode& n = added ? *nodes->Add() : *it;
  n.set_node(report.node());
  n.set_since(report.since());
  n.set_util_pct(report.mean_util_pct());
  return added;
}

std::optional<WholeJobGpuIdle> JobGpusIdle(const wire::JobRecord& job) {
  WholeJobGpuIdle idle;
  size_t gpus = 0;
  double util_sum = 0;
  for (int i = 0; i < job.nodes_size(); ++i) {
    const size_t here = JobGpusAt(job, i);
    if (here == 0) continue;
    auto it = std::find_if(job.gpu_idle_nodes().begin(), job.gpu_idle_nodes().end(),
                           [&](const wire::GpuIdleNode& n) { return n.node() == job.nodes(i); });
    if (it == job.gpu_idle_nodes().end()) return std::nullopt;
    idle.since = std::max(idle.since, it->since());
    util_sum += it->util_pct() * static_cast<double>(here);
    gpus += here;
  }
  if (gpus == 0) return std::nullopt;
  idle.util_pct = util_sum / static_cast<double>(gpus);
  return idle;
}

std::string GpuIdleTime(int64_t t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}", fmt::gmtime(static_cast<std::time_t>(t)));
}

wire::NodeEvent GpuIdleEvent(const wire::JobRecord& job, const conf::GpuIdlePolicy& policy,
                             const std::string& cluster, int64_t end) {
  wire::NodeEvent e;
  e.set_cluster(cluster);
  e.set_node(job.nodes().empty() ? "" : job.nodes(0));
  e.set_time_start(job.gpu_idle_since());
  e.set_time_end(end);
  e.set_state(kGpuIdleEventState);
  e.set_reason(fmt::format("job {}: GPUs below {:g}% (mean {:.1f}%)", job.job_id(),
                           policy.threshold_pct, job.gpu_idle_util()));
  e.set_reason_uid(job.spec().uid());
  e.set_user(job.spec().user());
  return e;
}

MailNotice GpuIdleMail(const wire::JobRecord& job, const conf::GpuIdlePolicy& policy,
                       const std::string& cluster) {
  const wire::JobSpec& s = job.spec();
  std::string subject = fmt::format(
      "Slurm Job_id={} Name={} GPUs idle since {} (mean {:.1f}%, below {:g}%)", job.job_id(),
      s.name(), GpuIdleTime(job.gpu_idle_since()), job.gpu_idle_util(), policy.threshold_pct);
  if (job.gpu_idle_action_at() > 0) {
    subject += fmt::format(", {} at {}", conf::GpuIdleActionName(policy.action),
                           GpuIdleTime(job.gpu_idle_action_at()));
  }
  MailNotice notice;
  notice.job_id = job.job_id();
  notice.recipient = s.mail_user().empty() ? s.user() : s.mail_user();
  notice.subject = std::move(subject);
  notice.environment = JobScriptEnvironment(job, cluster, /*ended=*/false);
  notice.environment.push_back("SLURM_JOB_MAIL_TYPE=GPU_IDLE");
  return notice;
}

}  // namespace rota::ctld
