#include "ctld/core/accounting_records.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

conf::ClusterConfig Config(bool on, std::vector<std::string> tres = {"gres/gpu"}) {
  conf::ClusterConfig c;
  c.settings.cluster_name = "c1";
  c.settings.accounting_storage_type =
      on ? "accounting_storage/slurmdbd" : "accounting_storage/none";
  c.settings.accounting_storage_tres = std::move(tres);
  c.settings.def_mem_per_cpu = 1024;
  return c;
}

wire::JobRecord Running() {
  wire::JobRecord j;
  j.set_job_id(12);
  j.set_restart_count(2);
  j.set_state(wire::JOB_STATE_RUNNING);
  j.set_submit_time(90);
  j.set_start_time(100);
  j.set_end_time(3700);  // While running: the time limit's end, not an end
  j.add_nodes("n2");
  j.add_nodes("n1");
  j.set_alloc_cpus(4);
  j.set_alloc_tres("cpu=4,mem=4G,node=2,billing=4,gres/gpu=2,gres/gpu:a100=2");
  j.set_req_nodes(2);
  j.set_reason("None");
  wire::JobSpec& s = *j.mutable_spec();
  s.set_name("train");
  s.set_user("alice");
  s.set_account("phys");
  s.set_partition("gpu");
  s.set_gpus_per_node("a100:1");
  return j;
}

TEST(AccountingRecordsTest, NothingWhenAccountingIsOff) {
  Effects effects;
  AccountJobChange(Config(false), Running(), effects);
  EXPECT_TRUE(effects.accounting.empty());
  EXPECT_TRUE(effects.empty());
}

TEST(AccountingRecordsTest, AStartedAttempt) {
  Effects effects;
  AccountJobChange(Config(true), Running(), effects);
  ASSERT_EQ(effects.accounting.size(), 1u);
  const wire::AccountingJob& a = effects.accounting[0];
  EXPECT_EQ(a.cluster(), "c1");
  EXPECT_EQ(a.job_id(), 12u);
  EXPECT_EQ(a.restarts(), 2u);
  EXPECT_EQ(a.state(), wire::JOB_STATE_RUNNING);
  EXPECT_FALSE(a.ended());
  EXPECT_EQ(a.start_time(), 100);
  EXPECT_EQ(a.end_time(), 0);
  EXPECT_EQ(a.nodelist(), "n[1-2]");
  EXPECT_EQ(a.alloc_nodes(), 2u);
  // gres/gpu:a100 is not in AccountingStorageTRES: not recorded.
  EXPECT_EQ(a.alloc_tres(), "cpu=4,mem=4G,node=2,billing=4,gres/gpu=2");
  EXPECT_EQ(a.req_tres(), "cpu=4,mem=4G,node=2,billing=4,gres/gpu=2");
  EXPECT_EQ(a.req_mem_mb(), 4096u);
}

TEST(AccountingRecordsTest, GpusAreNotRecordedUnlessTracked) {
  Effects effects;
  AccountJobChange(Config(true, {}), Running(), effects);
  ASSERT_EQ(effects.accounting.size(), 1u);
  EXPECT_EQ(effects.accounting[0].alloc_tres(), "cpu=4,mem=4G,node=2,billing=4");
}

TEST(AccountingRecordsTest, PendingCompletingAndArrayMetaRecordsYieldNothing) {
  Effects effects;
  wire::JobRecord j = Running();
  j.set_state(wire::JOB_STATE_PENDING);
  AccountJobChange(Config(true), j, effects);
  j.set_state(wire::JOB_STATE_COMPLETING);
  AccountJobChange(Config(true), j, effects);
  j.set_state(wire::JOB_STATE_COMPLETED);
  j.set_array_meta(true);
  AccountJobChange(Config(true), j, effects);
  EXPECT_TRUE(effects.accounting.empty());
}

TEST(AccountingRecordsTest, EndedAttemptsAndNeverStartedJobs) {
  Effects effects;
  wire::JobRecord j = Running();
  j.set_state(wire::JOB_STATE_CANCELLED);
  j.set_cancelled(true);
  j.set_cancelled_by_uid(1001);
  j.set_end_time(200);
  AccountJobChange(Config(true), j, effects);
  ASSERT_EQ(effects.accounting.size(), 1u);
  EXPECT_TRUE(effects.accounting[0].ended());
  EXPECT_EQ(effects.accounting[0].end_time(), 200);
  EXPECT_TRUE(effects.accounting[0].cancelled());
  EXPECT_EQ(effects.accounting[0].cancelled_by_uid(), 1001u);

  // Cancelled while pending: no allocation, the request still known.
  wire::JobRecord p = Running();
  p.clear_nodes();
  p.clear_alloc_tres();
  p.set_alloc_cpus(2);
  p.set_req_nodes(1);
  p.mutable_spec()->clear_gpus_per_node();
  p.set_state(wire::JOB_STATE_CANCELLED);
  p.set_start_time(300);
  p.set_end_time(300);
  effects.accounting.clear();
  AccountJobChange(Config(true), p, effects);
  ASSERT_EQ(effects.accounting.size(), 1u);
  EXPECT_EQ(effects.accounting[0].alloc_tres(), "");
  EXPECT_EQ(effects.accounting[0].nodelist(), "");
  EXPECT_EQ(effects.accounting[0].req_tres(), "cpu=2,mem=2G,node=1,billing=2");
}

TEST(AccountingRecordsTest, TheAttemptARequeueEnds) {
  Effects effects;
  AccountAttemptEnd(Config(true), Running(), wire::JOB_STATE_NODE_FAIL, 500, effects);
  ASSERT_EQ(effects.accounting.size(), 1u);
  const wire::AccountingJob& a = effects.accounting[0];
  EXPECT_EQ(a.state(), wire::JOB_STATE_NODE_FAIL);
  EXPECT_TRUE(a.ended());
  EXPECT_EQ(a.end_time(), 500);
  EXPECT_EQ(a.restarts(), 2u);  // The attempt that ends, not the next one
}

TEST(AccountingRecordsTest, TheBatchStepIsTheFirstNodesShare) {
  wire::JobRecord j = Running();
  for (int i = 0; i < 2; ++i) {
    wire::NodeAlloc* a = j.add_allocs();
    a->set_cpus(2);
    a->set_mem_mb(2048);
    a->set_gpu_ids(i == 0 ? "0" : "3");
  }
  wire::AccountingJob a = MakeAccountingJob(Config(true), j, j.state());
  EXPECT_TRUE(a.batch());
  EXPECT_EQ(a.batch_cpus(), 2u);
  EXPECT_EQ(a.batch_tres(), "cpu=2,mem=2G,node=1,gres/gpu=1");
  EXPECT_EQ(MakeAccountingJob(Config(true, {}), j, j.state()).batch_tres(), "cpu=2,mem=2G,node=1");
  // salloc's and srun's allocations run no batch script of the user's.
  j.mutable_spec()->set_interactive(true);
  EXPECT_FALSE(MakeAccountingJob(Config(true), j, j.state()).batch());
}

TEST(AccountingRecordsTest, AStepsRecord) {
  wire::JobStepRecord step;
  step.set_job_id(12);
  step.set_step_id(3);
  step.set_name("python");
  step.set_state(wire::JOB_STATE_FAILED);
  step.set_exit_code(2 << 8);
  step.set_start_time(200);
  step.set_end_time(260);
  step.set_num_tasks(4);
  step.set_cpus_per_task(2);
  step.set_gpus_per_task(1);
  step.add_nodes("n2");
  step.add_nodes("n1");
  wire::AccountingStep a = MakeAccountingStep(Config(true), step);
  EXPECT_EQ(a.step_id(), 3u);
  EXPECT_EQ(a.name(), "python");
  EXPECT_EQ(a.state(), wire::JOB_STATE_FAILED);
  EXPECT_EQ(a.exit_code(), 2u << 8);
  EXPECT_EQ(a.nodelist(), "n[1-2]");
  EXPECT_EQ(a.alloc_cpus(), 8u);
  EXPECT_EQ(a.alloc_nodes(), 2u);
  EXPECT_EQ(a.alloc_tres(), "cpu=8,node=2,gres/gpu=4");
  EXPECT_EQ(MakeAccountingStep(Config(true, {}), step).alloc_tres(), "cpu=8,node=2");
  EXPECT_FALSE(a.has_usage());
  // What it held on each node, when recorded, bounds it (srun -O).
  wire::JobStepRecord overcommitted = step;
  overcommitted.add_cpu_ids("0-1");
  overcommitted.add_cpu_ids("3");
  EXPECT_EQ(MakeAccountingStep(Config(true, {}), overcommitted).alloc_cpus(), 3u);

  step.mutable_usage()->set_max_rss_kb(51200);
  step.mutable_usage()->set_max_rss_node("n1");
  step.mutable_usage()->set_max_rss_task(3);
  step.mutable_usage()->set_tasks(4);
  a = MakeAccountingStep(Config(true), step);
  EXPECT_EQ(a.usage().max_rss_kb(), 51200u);
  EXPECT_EQ(a.usage().max_rss_node(), "n1");
  EXPECT_EQ(a.usage().max_rss_task(), 3u);
}

TEST(AccountingRecordsTest, AStepsLayoutIsHowItsTasksWereDealt) {
  wire::JobStepRecord step;
  step.set_num_tasks(2);
  step.add_nodes("n1");
  EXPECT_EQ(MakeAccountingStep(Config(true), step).layout(), "Block");
  step.set_distribution("cyclic:block");
  EXPECT_EQ(MakeAccountingStep(Config(true), step).layout(), "Cyclic");
  step.set_distribution("plane=2");
  EXPECT_EQ(MakeAccountingStep(Config(true), step).layout(), "Plane");
  step.set_distribution("arbitrary");
  EXPECT_EQ(MakeAccountingStep(Config(true), step).layout(), "Arbitrary");
}

// What sacct's other fields read: the request as given, the priority and
// the time spent suspended, a suspension still on at the end included.
TEST(AccountingRecordsTest, TheRequestAndTheTimeSuspended) {
  wire::JobRecord j = Running();
  wire::JobSpec& s = *j.mutable_spec();
  s.set_comment("calibration run");
  s.set_constraint("a100&ib");
  s.set_reservation("maint");
  s.set_submit_line("sbatch -N2 --comment=calibration job.sh");
  s.mutable_container()->set_image("pytorch.sqsh");
  s.set_min_nodes(2);
  j.set_priority(4242);
  j.set_suspended_s(30);
  conf::ClusterConfig config = Config(true);
  // Slurm keeps the comment only with AccountingStoreFlags=job_comment.
  EXPECT_EQ(MakeAccountingJob(config, j, wire::JOB_STATE_RUNNING).comment(), "");
  config.settings.accounting_store_flags = {"job_comment"};
  wire::AccountingJob started = MakeAccountingJob(config, j, wire::JOB_STATE_RUNNING);
  EXPECT_EQ(started.comment(), "calibration run");
  EXPECT_EQ(started.constraints(), "a100&ib");
  EXPECT_EQ(started.reservation(), "maint");
  EXPECT_EQ(started.submit_line(), "sbatch -N2 --comment=calibration job.sh");
  EXPECT_EQ(started.container(), "pytorch.sqsh");
  EXPECT_EQ(started.priority(), 4242u);
  EXPECT_EQ(started.req_nodes(), 2u);
  EXPECT_EQ(started.suspended_s(), 30);

  j.set_state(wire::JOB_STATE_CANCELLED);
  j.set_suspend_time(500);
  j.set_end_time(620);
  EXPECT_EQ(MakeAccountingJob(Config(true), j, wire::JOB_STATE_CANCELLED).suspended_s(), 150);
  s.mutable_container()->set_bundle("/srv/bundle");
  EXPECT_EQ(MakeAccountingJob(Config(true), j, wire::JOB_STATE_CANCELLED).container(),
            "/srv/bundle");
}

TEST(AccountingRecordsTest, ABatchJobsStartCarriesWhatAccountingStoreFlagsAsk) {
  wire::JobRecord j = Running();
  wire::JobPayload payload;
  payload.set_script("#!/bin/sh\nhostname\n");
  payload.add_environment("HOME=/home/alice");
  payload.add_environment("MODE=fast mode");
  conf::ClusterConfig config = Config(true);
  wire::AccountingJob started = MakeAccountingJob(config, j, wire::JOB_STATE_RUNNING);
  EXPECT_FALSE(CarriesJobTexts(config, started)) << "nothing asked";

  config.settings.accounting_store_flags = {"job_script"};
  ASSERT_TRUE(CarriesJobTexts(config, started));
  AttachJobTexts(config, payload, started);
  EXPECT_EQ(started.script(), "#!/bin/sh\nhostname\n");
  EXPECT_EQ(started.environment(), "");

  config.settings.accounting_store_flags = {"job_env"};
  wire::AccountingJob with_env = MakeAccountingJob(config, j, wire::JOB_STATE_RUNNING);
  AttachJobTexts(config, payload, with_env);
  EXPECT_EQ(with_env.script(), "");
  EXPECT_EQ(with_env.environment(), "HOME=/home/alice\nMODE=fast mode\n");

  // Only a batch job's running record: rotadbd keeps the texts from it.
  wire::AccountingJob ended = MakeAccountingJob(config, j, wire::JOB_STATE_COMPLETED);
  EXPECT_FALSE(CarriesJobTexts(config, ended));
  j.mutable_spec()->set_interactive(true);
  EXPECT_FALSE(CarriesJobTexts(config, MakeAccountingJob(config, j, wire::JOB_STATE_RUNNING)));
}

TEST(AccountingRecordsTest, TheBatchStepsUsageGoesWithIt) {
  wire::JobRecord j = Running();
  j.mutable_batch_usage()->set_max_rss_kb(40960);
  j.mutable_batch_usage()->set_tasks(1);
  wire::AccountingJob a = MakeAccountingJob(Config(true), j, j.state());
  EXPECT_EQ(a.batch_usage().max_rss_kb(), 40960u);
  // No batch step, nothing to show it on.
  j.mutable_spec()->set_interactive(true);
  EXPECT_FALSE(MakeAccountingJob(Config(true), j, j.state()).has_batch_usage());
}

TEST(AccountingRecordsTest, TheExternStepComesWithPrologFlagsContain) {
  conf::ClusterConfig config = Config(true);
  wire::JobRecord j = Running();
  EXPECT_FALSE(MakeAccountingJob(config, j, j.state()).extern_step());
  config.settings.prolog_flags = {"Alloc", "Contain"};
  EXPECT_TRUE(ContainsExternStep(config));
  EXPECT_TRUE(MakeAccountingJob(config, j, j.state()).extern_step());
  // A job that never ran had no step at all.
  j.clear_nodes();
  j.set_state(wire::JOB_STATE_CANCELLED);
  EXPECT_FALSE(MakeAccountingJob(config, j, j.state()).extern_step());
}

}  // namespace
}  // namespace rota::ctld
