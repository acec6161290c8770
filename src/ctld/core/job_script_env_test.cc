#include "ctld/core/job_script_env.h"

#include <gtest/gtest.h>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

std::string EnvOf(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& e : env) {
    if (e.rfind(name + "=", 0) == 0) return e.substr(name.size() + 1);
  }
  return "(unset)";
}

TEST(JobScriptEnvTest, TheJobsVariables) {
  wire::JobRecord job;
  job.set_job_id(12);
  job.set_array_job_id(10);
  job.set_array_task_id(2);
  job.set_state(wire::JOB_STATE_FAILED);
  job.set_exit_code(3 << 8);
  job.add_nodes("gpu1");
  job.add_nodes("gpu2");
  wire::JobSpec& s = *job.mutable_spec();
  s.set_name("train");
  s.set_user("ada");
  s.set_uid(1000);
  s.set_account("physics");
  s.set_partition("gpu");
  s.set_work_dir("/home/ada");
  std::vector<std::string> env = JobScriptEnvironment(job, "c1", /*ended=*/true);
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_ID"), "12");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_USER"), "ada");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_UID"), "1000");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_ACCOUNT"), "physics");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_PARTITION"), "gpu");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_NODELIST"), "gpu[1-2]");
  EXPECT_EQ(EnvOf(env, "SLURM_CLUSTER_NAME"), "c1");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_WORK_DIR"), "/home/ada");
  EXPECT_EQ(EnvOf(env, "SLURM_ARRAY_JOB_ID"), "10");
  EXPECT_EQ(EnvOf(env, "SLURM_ARRAY_TASK_ID"), "2");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_STATE"), "FAILED");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_EXIT_CODE"), "768");
  EXPECT_EQ(EnvOf(env, "SLURM_JOB_EXIT_CODE2"), "3:0");
  EXPECT_EQ(EnvOf(JobScriptEnvironment(job, "c1", false), "SLURM_JOB_EXIT_CODE"), "(unset)");
}

// The core asks for EpilogSlurmctld when a job that held nodes ends, not for
// one cancelled while it waited.
class JobScriptEnvCoreTest : public testing::CoreTest {};

TEST_F(JobScriptEnvCoreTest, EpilogSlurmctldForEachAllocationThatEnds) {
  Start(
      "SlurmdTimeout=0\nBatchStartTimeout=100000\n"
      "EpilogSlurmctld=/etc/slurm/epilog_ctld\n"
      "NodeName=n1 CPUs=4 RealMemory=16000\n"
      "PartitionName=batch Nodes=n1 Default=YES MaxTime=1-00:00:00\n");
  ControllerCore& core = *core_;
  const int64_t now = kT0;
  Effects e;
  const Caller& alice = alice_;
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name("first");
  ASSERT_TRUE(core.Submit(req, alice, now, e).ok());
  req.mutable_spec()->set_hold(true);
  ASSERT_TRUE(core.Submit(req, alice, now, e).ok());
  Effects started;
  core.Tick(now + 1, started);
  ASSERT_EQ(started.launches.size(), 1u);
  EXPECT_TRUE(started.scripts.empty());

  Effects ended;
  ASSERT_TRUE(core.JobExited(1, 0, now + 5, ended).ok());
  ASSERT_EQ(ended.scripts.size(), 1u);
  EXPECT_EQ(ended.scripts[0].job_id, 1u);
  EXPECT_EQ(ended.scripts[0].program, "/etc/slurm/epilog_ctld");
  EXPECT_EQ(EnvOf(ended.scripts[0].environment, "SLURM_SCRIPT_CONTEXT"), "epilog_slurmctld");
  EXPECT_EQ(EnvOf(ended.scripts[0].environment, "SLURM_JOB_STATE"), "COMPLETED");
  EXPECT_EQ(EnvOf(ended.scripts[0].environment, "SLURM_JOB_NODELIST"), "n1");

  wire::SignalJobsRequest cancel;
  cancel.add_job_ids("2");
  Effects cancelled;
  core.SignalJobs(cancel, root_, now + 6, cancelled);
  EXPECT_TRUE(cancelled.scripts.empty());
  EXPECT_EQ(Job(2).state(), wire::JOB_STATE_CANCELLED);
}

// PrologSlurmctld: the launch waits for it; success launches, failure
// requeues (or kills a job that may not be requeued); a stale answer does
// nothing.
TEST_F(JobScriptEnvCoreTest, PrologSlurmctldGatesTheLaunch) {
  Start(
      "SlurmdTimeout=0\nBatchStartTimeout=100000\n"
      "PrologSlurmctld=/etc/slurm/prolog_ctld\n"
      "NodeName=n[1-3] CPUs=1 RealMemory=16000\n"
      "PartitionName=batch Nodes=n[1-3] Default=YES MaxTime=1-00:00:00\n");
  ControllerCore& core = *core_;
  const int64_t now = kT0;
  Effects e;
  const Caller& alice = alice_;
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_requeue(1);  // --requeue
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(core.Submit(req, alice, now, e).ok());
  req.mutable_spec()->set_requeue(2);  // --no-requeue
  ASSERT_TRUE(core.Submit(req, alice, now, e).ok());

  Effects started;
  core.Tick(now + 1, started);
  EXPECT_TRUE(started.launches.empty());
  ASSERT_EQ(started.scripts.size(), 3u);
  EXPECT_TRUE(started.scripts[0].prolog);
  EXPECT_EQ(started.scripts[0].program, "/etc/slurm/prolog_ctld");
  EXPECT_EQ(EnvOf(started.scripts[0].environment, "SLURM_SCRIPT_CONTEXT"), "prolog_slurmctld");
  EXPECT_EQ(Job(1).state(), wire::JOB_STATE_RUNNING);
  Effects again;
  core.Tick(now + 2, again);  // Asked already: not again
  EXPECT_TRUE(again.scripts.empty());

  Effects ok;
  core.PrologSlurmctldDone(1, 0, true, now + 3, ok);
  ASSERT_EQ(ok.launches.size(), 1u);
  EXPECT_EQ(ok.launches[0].job->job_id(), 1u);
  Effects stale;
  core.PrologSlurmctldDone(1, 0, true, now + 3, stale);
  EXPECT_TRUE(stale.launches.empty());

  Effects failed;
  core.PrologSlurmctldDone(2, 0, false, now + 4, failed);
  EXPECT_TRUE(failed.launches.empty());
  EXPECT_EQ(Job(2).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(2).restart_count(), 1u);

  Effects killed;
  core.PrologSlurmctldDone(3, 0, false, now + 4, killed);
  EXPECT_TRUE(killed.launches.empty());
  EXPECT_EQ(Job(3).state(), wire::JOB_STATE_CANCELLED);
}

}  // namespace
}  // namespace rota::ctld
