#include "ctld/core/job_mail.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/duration.h"
#include "ctld/core/job_script_env.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

struct TimeShare {
  model::MailEvent event;
  int percent;
};

constexpr TimeShare kTimeShares[] = {
    {model::kMailTimeLimit50, 50},
    {model::kMailTimeLimit80, 80},
    {model::kMailTimeLimit90, 90},
    {model::kMailTimeLimit, 100},
};

bool Ends(model::MailEvent event) { return event == model::kMailEnd || event == model::kMailFail; }

}  // namespace

std::optional<MailNotice> JobMail(const wire::JobRecord& job, model::MailEvent event, int64_t now,
                                  const std::string& cluster_name) {
  const wire::JobSpec& s = job.spec();
  if ((s.mail_type() & event) == 0) return std::nullopt;
  const bool array_task = job.array_job_id() != 0;
  if (array_task && (s.mail_type() & model::kMailArrayTasks) == 0) return std::nullopt;

  std::string subject =
      array_task ? fmt::format("Slurm Array Task Job_id={}_{} ({}) Name={} ", job.array_job_id(),
                               job.array_task_id(), job.job_id(), s.name())
                 : fmt::format("Slurm Job_id={} Name={} ", job.job_id(), s.name());
  subject += model::MailEventWords(event);
  std::vector<std::string> env = JobScriptEnvironment(job, cluster_name, Ends(event));
  if (event == model::kMailBegin && job.start_time() > 0) {
    const int64_t eligible = std::max(job.submit_time(), s.begin_time());
    const std::string queued =
        FormatDurationScontrol(std::max<int64_t>(0, job.start_time() - eligible));
    subject += ", Queued time " + queued;
    env.push_back("SLURM_JOB_QUEUED_TIME=" + queued);
  } else if ((Ends(event) || event == model::kMailRequeue) && job.start_time() > 0 &&
             job.end_time() > 0) {
    const std::string ran =
        FormatDurationScontrol(std::max<int64_t>(0, job.end_time() - job.start_time()));
    subject += ", Run time " + ran;
    env.push_back("SLURM_JOB_RUN_TIME=" + ran);
  } else if (event != model::kMailRequeue && !Ends(event) && job.start_time() > 0) {
    const std::string ran = FormatDurationScontrol(std::max<int64_t>(0, now - job.start_time()));
    subject += ", Run time " + ran;
    env.push_back("SLURM_JOB_RUN_TIME=" + ran);
  }
  if (Ends(event)) {
    subject += ", " + std::string(model::JobStateName(job.state()));
    // A job killed by a signal has no exit code to tell.
    if ((job.exit_code() & 0x7f) == 0) {
      subject += fmt::format(", ExitCode {}", (job.exit_code() >> 8) & 0xff);
    }
  }
  env.push_back("SLURM_JOB_MAIL_TYPE=" + std::string(model::MailEventWords(event)));

  MailNotice notice;
  notice.job_id = job.job_id();
  notice.recipient = s.mail_user().empty() ? s.user() : s.mail_user();
  notice.subject = std::move(subject);
  notice.environment = std::move(env);
  return notice;
}

void AddJobMail(const wire::JobRecord& job, model::MailEvent event, int64_t now,
                const std::string& cluster_name, Effects& effects) {
  if (job.spec().mail_type() == 0) return;  // The common case, cheaply.
  if (std::optional<MailNotice> notice = JobMail(job, event, now, cluster_name)) {
    effects.mails.push_back(std::move(*notice));
  }
}

std::optional<model::MailEvent> EndMailEvent(const wire::JobRecord& job, wire::JobState state) {
  const uint32_t asked = job.spec().mail_type();
  const bool end = (asked & model::kMailEnd) != 0;
  const bool fail = (asked & model::kMailFail) != 0;
  if (state == wire::JOB_STATE_COMPLETED || state == wire::JOB_STATE_CANCELLED) {
    if (end) return model::kMailEnd;
    return std::nullopt;
  }
  if (fail) return model::kMailFail;
  if (end) return model::kMailEnd;
  return std::nullopt;
}

std::vector<model::MailEvent> DueTimeLimitMails(const wire::JobRecord& job, int64_t now,
                                                std::optional<int64_t>* next) {
  std::vector<model::MailEvent> due;
  if (next != nullptr) next->reset();
  const uint32_t asked = job.spec().mail_type();
  if (job.time_limit_s() <= 0 || job.start_time() <= 0) return due;
  for (const TimeShare& share : kTimeShares) {
    if ((asked & share.event) == 0 || (job.mail_sent() & share.event) != 0) continue;
    const int64_t at = job.start_time() + job.time_limit_s() * share.percent / 100;
    if (now >= at) {
      due.push_back(share.event);
    } else if (next != nullptr && (!*next || at < **next)) {
      *next = at;
    }
  }
  return due;
}

}  // namespace rota::ctld
