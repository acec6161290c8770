#include "ctld/core/job_mail.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

constexpr int64_t kT0 = 1'800'000'000;

std::string EnvOf(const MailNotice& mail, const std::string& name) {
  for (const std::string& e : mail.environment) {
    if (e.rfind(name + "=", 0) == 0) return e.substr(name.size() + 1);
  }
  return "(unset)";
}

wire::JobRecord Job(uint32_t mail_type) {
  wire::JobRecord job;
  job.set_job_id(7);
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->set_user("ada");
  job.mutable_spec()->set_mail_type(mail_type);
  job.set_submit_time(kT0);
  job.set_start_time(kT0 + 5);
  job.set_time_limit_s(3600);
  job.set_state(wire::JOB_STATE_RUNNING);
  return job;
}

TEST(JobMailTest, SubjectsAsSlurmWritesThem) {
  wire::JobRecord job = Job(model::kMailBegin | model::kMailEnd | model::kMailTimeLimit90);
  std::optional<MailNotice> began = JobMail(job, model::kMailBegin, kT0 + 5, "c");
  ASSERT_TRUE(began);
  EXPECT_EQ(began->subject, "Slurm Job_id=7 Name=train Began, Queued time 00:00:05");
  EXPECT_EQ(began->recipient, "ada");  // No --mail-user: the job's user
  EXPECT_EQ(EnvOf(*began, "SLURM_JOB_MAIL_TYPE"), "Began");
  EXPECT_EQ(EnvOf(*began, "SLURM_JOB_ID"), "7");
  EXPECT_EQ(EnvOf(*began, "SLURM_CLUSTER_NAME"), "c");
  EXPECT_EQ(EnvOf(*began, "SLURM_JOB_EXIT_CODE"), "(unset)");

  EXPECT_EQ(JobMail(job, model::kMailTimeLimit90, kT0 + 5 + 3240, "c")->subject,
            "Slurm Job_id=7 Name=train Reached 90% of time limit, Run time 00:54:00");
  EXPECT_FALSE(JobMail(job, model::kMailFail, kT0, "c"));  // Not asked for

  job.mutable_spec()->set_mail_user("ada@example.org");
  job.set_state(wire::JOB_STATE_COMPLETED);
  job.set_end_time(kT0 + 5 + 3661);
  job.set_exit_code(0);
  std::optional<MailNotice> ended = JobMail(job, model::kMailEnd, kT0 + 4000, "c");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->recipient, "ada@example.org");
  EXPECT_EQ(ended->subject,
            "Slurm Job_id=7 Name=train Ended, Run time 01:01:01, COMPLETED, ExitCode 0");
  EXPECT_EQ(EnvOf(*ended, "SLURM_JOB_EXIT_CODE2"), "0:0");
  EXPECT_EQ(EnvOf(*ended, "SLURM_JOB_STATE"), "COMPLETED");

  // Killed by a signal: no exit code to tell.
  job.mutable_spec()->set_mail_type(model::kMailFail);
  job.set_state(wire::JOB_STATE_FAILED);
  job.set_exit_code(9);
  EXPECT_EQ(JobMail(job, model::kMailFail, kT0 + 4000, "c")->subject,
            "Slurm Job_id=7 Name=train Failed, Run time 01:01:01, FAILED");
}

TEST(JobMailTest, ArrayTasksMailOnlyWithArrayTasks) {
  wire::JobRecord task = Job(model::kMailBegin);
  task.set_array_job_id(5);
  task.set_array_task_id(2);
  EXPECT_FALSE(JobMail(task, model::kMailBegin, kT0 + 5, "c"));
  task.mutable_spec()->set_mail_type(model::kMailBegin | model::kMailArrayTasks);
  std::optional<MailNotice> mail = JobMail(task, model::kMailBegin, kT0 + 5, "c");
  ASSERT_TRUE(mail);
  EXPECT_EQ(mail->subject,
            "Slurm Array Task Job_id=5_2 (7) Name=train Began, Queued time 00:00:05");
  EXPECT_EQ(EnvOf(*mail, "SLURM_ARRAY_TASK_ID"), "2");
}

TEST(JobMailTest, EndOrFailAsSlurmChooses) {
  wire::JobRecord both = Job(model::kMailEnd | model::kMailFail);
  EXPECT_EQ(EndMailEvent(both, wire::JOB_STATE_COMPLETED), model::kMailEnd);
  EXPECT_EQ(EndMailEvent(both, wire::JOB_STATE_CANCELLED), model::kMailEnd);
  EXPECT_EQ(EndMailEvent(both, wire::JOB_STATE_TIMEOUT), model::kMailFail);
  wire::JobRecord end = Job(model::kMailEnd);
  EXPECT_EQ(EndMailEvent(end, wire::JOB_STATE_FAILED), model::kMailEnd);
  wire::JobRecord fail = Job(model::kMailFail);
  EXPECT_EQ(EndMailEvent(fail, wire::JOB_STATE_COMPLETED), std::nullopt);
  EXPECT_EQ(EndMailEvent(fail, wire::JOB_STATE_OUT_OF_MEMORY), model::kMailFail);
}

TEST(JobMailTest, TimeLimitMailsFallDueOnceEach) {
  wire::JobRecord job = Job(model::kMailTimeLimit50 | model::kMailTimeLimit);
  std::optional<int64_t> next;
  EXPECT_TRUE(DueTimeLimitMails(job, kT0 + 100, &next).empty());
  EXPECT_EQ(next, kT0 + 5 + 1800);
  EXPECT_EQ(DueTimeLimitMails(job, kT0 + 5 + 1800, &next),
            std::vector<model::MailEvent>{model::kMailTimeLimit50});
  EXPECT_EQ(next, kT0 + 5 + 3600);
  job.set_mail_sent(model::kMailTimeLimit50);
  EXPECT_EQ(DueTimeLimitMails(job, kT0 + 5 + 3600, &next),
            std::vector<model::MailEvent>{model::kMailTimeLimit});
  EXPECT_EQ(next, std::nullopt);
}

// The core: BEGIN when the job starts, the 50% mail once, END when it ends;
// --mail-user defaults to the submitter.
class JobMailCoreTest : public testing::CoreTest {};

TEST_F(JobMailCoreTest, TheCoreMailsAtEachAskedForEvent) {
  // No node daemon reports here: nothing may count the node or its job lost.
  Start(
      "SlurmdTimeout=0\nBatchStartTimeout=100000\n"
      "NodeName=n1 CPUs=4 RealMemory=16000\n"
      "PartitionName=batch Nodes=n1 Default=YES MaxTime=1-00:00:00\n");
  ControllerCore& core = *core_;
  int64_t now = kT0;
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name("train");
  req.mutable_spec()->set_time_limit_s(600);
  req.mutable_spec()->set_mail_type(model::kMailBegin | model::kMailEnd | model::kMailTimeLimit50);
  Effects e;
  Result<wire::SubmitJobResponse> submitted = core.Submit(req, alice_, now, e);
  ASSERT_TRUE(submitted.ok()) << submitted.status().message();
  EXPECT_EQ(Job(submitted->job_id()).spec().mail_user(), "alice");
  EXPECT_TRUE(e.mails.empty());

  now += 3;
  Effects started;
  core.Tick(now, started);
  ASSERT_EQ(started.launches.size(), 1u);
  ASSERT_EQ(started.mails.size(), 1u);
  EXPECT_EQ(started.mails[0].subject, "Slurm Job_id=1 Name=train Began, Queued time 00:00:03");
  EXPECT_EQ(started.mails[0].recipient, "alice");

  now += 300;
  Effects half;
  core.Tick(now, half);
  ASSERT_EQ(half.mails.size(), 1u);
  EXPECT_EQ(half.mails[0].subject,
            "Slurm Job_id=1 Name=train Reached 50% of time limit, Run time 00:05:00");
  Effects again;
  core.Tick(now + 10, again);
  EXPECT_TRUE(again.mails.empty());

  now += 20;
  ASSERT_EQ(Job(1).state(), wire::JOB_STATE_RUNNING);
  Effects ended;
  ASSERT_TRUE(core.JobExited(1, 2 << 8, now, ended).ok());
  ASSERT_EQ(ended.mails.size(), 1u);
  EXPECT_EQ(ended.mails[0].subject,
            "Slurm Job_id=1 Name=train Ended, Run time 00:05:20, FAILED, ExitCode 2");
}

}  // namespace
}  // namespace rota::ctld
