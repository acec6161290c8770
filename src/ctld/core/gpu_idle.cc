#include "ctld/core/gpu_idle.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "ctld/core/job_script_env.h"

namespace rota::ctld {

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
