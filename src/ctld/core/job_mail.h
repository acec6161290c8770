#pragma once

// The mail a job's --mail-type asks for, as Slurm's controller words it: the
// MailProg effect for one event of one job (subject, recipient, environment).
// The server runs MailProg (ctld/server/mail_sender.h); nothing here does I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctld/core/effects.h"
#include "model/mail_type.h"
#include "rota.pb.h"

namespace rota::ctld {

// The mail for `event` of `job` at `now`; none when the job did not ask for
// it. An array task mails only with ARRAY_TASKS (Slurm's summary mail for a
// whole array is not sent). Subjects:
//   Slurm Job_id=7 Name=train Began, Queued time 00:00:05
//   Slurm Job_id=7 Name=train Ended, Run time 01:00:00, COMPLETED, ExitCode 0
//   Slurm Array Task Job_id=7_2 (9) Name=train Failed, Run time 00:00:01, FAILED, ExitCode 3
//   Slurm Job_id=7 Name=train Reached 90% of time limit, Run time 00:54:00
std::optional<MailNotice> JobMail(const wire::JobRecord& job, model::MailEvent event, int64_t now,
                                  const std::string& cluster_name);

// Appends JobMail's notice, if any, to `effects`.
void AddJobMail(const wire::JobRecord& job, model::MailEvent event, int64_t now,
                const std::string& cluster_name, Effects& effects);

// The event a job that ended in `state` mails, as Slurm chooses: a job
// COMPLETED or CANCELLED mails END; any other end mails FAIL when asked, else
// END. None when it asked for neither.
std::optional<model::MailEvent> EndMailEvent(const wire::JobRecord& job, wire::JobState state);

// The time-limit mails (TIME_LIMIT_50/80/90 at that share of the limit,
// TIME_LIMIT at the limit) of a running `job` that are due at `now` and not
// yet in its mail_sent. `next`, when given, is set to when the next one
// falls due (unset when none remains).
std::vector<model::MailEvent> DueTimeLimitMails(const wire::JobRecord& job, int64_t now,
                                                std::optional<int64_t>* next = nullptr);

}  // namespace rota::ctld
