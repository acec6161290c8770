// Job steps survive a controller restart: each start and end is logged, and
// the log or a snapshot brings back the running steps and the next step id.
#include <gtest/gtest.h>
#include <signal.h>

#include "ctld/core/core_test_fixture.h"
#include "model/task_distribution.h"

namespace rota::ctld {
namespace {

class JobStepsTest : public testing::CoreTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        Start("AccountingStorageType=accounting_storage/slurmdbd\n"
              "NodeName=n[1-2] CPUs=4 RealMemory=16000\n"
              "PartitionName=batch Nodes=n[1-2] Default=YES\n"));
    // Not the fixture's SubmitAs: what the submission logs and accounts is kept.
    wire::SubmitJobRequest req;
    req.mutable_spec()->set_name("job");
    req.mutable_spec()->set_min_nodes(2);
    req.mutable_spec()->set_num_tasks(2);
    req.mutable_spec()->set_time_limit_s(3600);
    Effects e;
    auto r = core_->Submit(req, alice_, kT0, e);
    ASSERT_TRUE(r.ok()) << r.status().message();
    job_ = r->job_id();
    Keep(e);
    Effects tick = Tick();  // At now_, kT0
    Keep(tick);
    ASSERT_EQ(core_->FindJob(job_)->state(), wire::JOB_STATE_RUNNING);
  }
  // A restarted controller on the same configuration, its nodes registered.
  std::unique_ptr<ControllerCore> Fresh() {
    auto core = std::make_unique<ControllerCore>(config_);
    Effects e;
    EXPECT_TRUE(core->NodeRegistered("n1", kT0, kT0, e).ok());
    EXPECT_TRUE(core->NodeRegistered("n2", kT0, kT0, e).ok());
    return core;
  }
  void Keep(Effects& e) {
    log_.insert(log_.end(), e.records.begin(), e.records.end());
    accounting_.insert(accounting_.end(), e.accounting.begin(), e.accounting.end());
    e.records.clear();
    e.accounting.clear();
  }
  uint32_t Step(ControllerCore& core) {
    wire::CreateStepRequest req;
    req.set_job_id(job_);
    req.set_num_tasks(1);
    Effects e;
    auto r = core.CreateStep(req, alice_, kT0 + 10, e);
    EXPECT_TRUE(r.ok()) << r.status().message();
    Keep(e);
    return r.ok() ? r->step().step_id() : 999;
  }
  void End(ControllerCore& core, uint32_t step, uint32_t wait_status = 0, uint64_t max_rss_kb = 0) {
    wire::StepEndedRequest req;
    req.set_job_id(job_);
    req.set_step_id(step);
    req.set_wait_status(wait_status);
    if (max_rss_kb > 0) {
      req.mutable_usage()->set_max_rss_kb(max_rss_kb);
      req.mutable_usage()->set_max_rss_node("n2");
      req.mutable_usage()->set_tasks(1);
    }
    Effects e;
    EXPECT_TRUE(core.EndStep(req, alice_, kT0 + 15, e).ok());
    Keep(e);
  }
  std::vector<uint32_t> Listed(const ControllerCore& core) {
    wire::ListStepsRequest req;
    std::vector<uint32_t> ids;
    for (const wire::JobStepRecord& s : core.steps().List(req)) ids.push_back(s.step_id());
    return ids;
  }

  uint32_t job_ = 0;
  std::vector<wire::StateRecord> log_;
  std::vector<wire::AccountingJob> accounting_;
};

TEST_F(JobStepsTest, TheLogBringsBackRunningStepsAndTheNextId) {
  EXPECT_EQ(Step(*core_), 0u);
  EXPECT_EQ(Step(*core_), 1u);
  End(*core_, 0);
  EXPECT_EQ(Listed(*core_), std::vector<uint32_t>{1});

  auto restarted = Fresh();
  restarted->Restore(nullptr, log_);
  EXPECT_EQ(Listed(*restarted), std::vector<uint32_t>{1});
  EXPECT_EQ(restarted->steps().Find(job_, 1)->nodes_size(), 1);
  EXPECT_EQ(Step(*restarted), 2u);  // Not 0 again: ids 0 and 1 were given
}

TEST_F(JobStepsTest, ArbitraryStepsRunEachTaskOnTheNodeItsHostfileLineNames) {
  auto create = [&](std::vector<std::string> hosts, bool overcommit) {
    wire::CreateStepRequest req;
    req.set_job_id(job_);
    req.set_num_tasks(static_cast<uint32_t>(hosts.size()));
    req.set_distribution("arbitrary");
    req.set_overcommit(overcommit);
    for (const std::string& h : hosts) req.add_task_hosts(h);
    Effects e;
    return core_->CreateStep(req, alice_, kT0 + 10, e);
  };
  // Task 0 on n2, task 1 on n1: the nodes stay in the job's order, each
  // running the tasks that name it.
  auto step = create({"n2", "n1"}, false);
  ASSERT_TRUE(step.ok()) << step.status().message();
  const wire::JobStepRecord& record = step->step();
  EXPECT_EQ(record.distribution(), "arbitrary");  // Kept for the nodes' binding and sacct's Layout
  EXPECT_EQ(std::vector<std::string>(record.nodes().begin(), record.nodes().end()),
            (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(model::StepTaskIdsOnNode(record, 0), std::vector<uint32_t>{1});
  EXPECT_EQ(model::StepTaskIdsOnNode(record, 1), std::vector<uint32_t>{0});
  End(*core_, record.step_id());
  // Two tasks on one CPU of n2: never in this allocation, unless -O.
  auto crowded = create({"n2", "n2"}, false);
  ASSERT_FALSE(crowded.ok());
  EXPECT_NE(crowded.status().message().find("More processors requested than permitted"),
            std::string::npos)
      << crowded.status().message();
  auto overcommitted = create({"n2", "n2"}, true);
  ASSERT_TRUE(overcommitted.ok()) << overcommitted.status().message();
  EXPECT_EQ(overcommitted->step().nodes_size(), 1);
  EXPECT_EQ(model::StepTaskIdsOnNode(overcommitted->step(), 0), (std::vector<uint32_t>{0, 1}));
  // A node that is not the job's.
  auto elsewhere = create({"n1", "n9"}, false);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_NE(elsewhere.status().message().find("n9 is not one of the job's nodes"),
            std::string::npos)
      << elsewhere.status().message();
}

TEST_F(JobStepsTest, ASnapshotCarriesThemToo) {
  Step(*core_);
  Step(*core_);
  End(*core_, 1);
  wire::StateSnapshot snapshot;
  ASSERT_TRUE(snapshot.ParseFromString(core_->SerializeSnapshot()));
  EXPECT_EQ(snapshot.job_steps_size(), 1);
  auto restarted = Fresh();
  restarted->Restore(&snapshot, {});
  EXPECT_EQ(Listed(*restarted), std::vector<uint32_t>{0});
  EXPECT_EQ(Step(*restarted), 2u);
  // The plain Snapshot() agrees with the serialized view.
  EXPECT_EQ(core_->Snapshot().job_steps_size(), 1);
}

TEST_F(JobStepsTest, StepsOfAJobThatEndedAreNotRestored) {
  Step(*core_);
  wire::SignalJobsRequest req;
  req.add_job_ids(std::to_string(job_));
  Effects e;
  core_->SignalJobs(req, alice_, kT0 + 20, e);
  Keep(e);
  ASSERT_NE(core_->FindJob(job_)->state(), wire::JOB_STATE_RUNNING);
  auto restarted = Fresh();
  restarted->Restore(nullptr, log_);
  EXPECT_TRUE(Listed(*restarted).empty());
}

TEST_F(JobStepsTest, EndingAnUnknownStepLogsNothing) {
  End(*core_, 7);
  for (const wire::StateRecord& r : log_) EXPECT_FALSE(r.has_job_steps());
}

// srun reports that a node's step cage saw the kernel's memory kill: the
// step ends OUT_OF_MEMORY, its job keeps running.
TEST_F(JobStepsTest, AStepKilledForItsMemoryEndsOutOfMemory) {
  Step(*core_);
  wire::StepEndedRequest req;
  req.set_job_id(job_);
  req.set_step_id(0);
  req.set_wait_status(SIGKILL);
  req.set_out_of_memory(true);
  Effects e;
  ASSERT_TRUE(core_->EndStep(req, alice_, kT0 + 15, e).ok());
  Keep(e);
  ASSERT_FALSE(accounting_.empty());
  const wire::AccountingJob& running = accounting_.back();
  EXPECT_EQ(running.state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(running.steps_size(), 1);
  EXPECT_EQ(running.steps(0).state(), wire::JOB_STATE_OUT_OF_MEMORY);
  EXPECT_EQ(running.steps(0).exit_code(), static_cast<uint32_t>(SIGKILL));
}

TEST_F(JobStepsTest, AccountingHearsOfEachStepAndTheLastRecordHasThemAll) {
  Step(*core_);
  Step(*core_);
  End(*core_, 0, 3 << 8);
  ASSERT_FALSE(accounting_.empty());
  const wire::AccountingJob& running = accounting_.back();
  EXPECT_EQ(running.state(), wire::JOB_STATE_RUNNING);
  EXPECT_TRUE(running.batch());
  ASSERT_EQ(running.steps_size(), 2);
  EXPECT_EQ(running.steps(0).state(), wire::JOB_STATE_FAILED);
  EXPECT_EQ(running.steps(0).exit_code(), 3u << 8);
  EXPECT_EQ(running.steps(0).end_time(), kT0 + 15);
  EXPECT_EQ(running.steps(1).state(), wire::JOB_STATE_RUNNING);

  // The job is cancelled with step 1 still running: its final record has
  // both, the running one ended with it.
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids(std::to_string(job_));
  Effects e;
  core_->SignalJobs(cancel, alice_, kT0 + 20, e);
  Keep(e);
  // The nodes report the script gone, then their cleanup done.
  for (const char* node : {"n1", "n2"}) {
    for (bool early : {true, false}) {
      wire::JobExitedRequest exited;
      exited.set_job_id(job_);
      exited.set_node(node);
      exited.set_wait_status(15);
      exited.set_cleanup_follows(early);
      EXPECT_TRUE(core_->ReportExit(exited, kT0 + 21, e).ok());
      Keep(e);
    }
  }
  const wire::AccountingJob& last = accounting_.back();
  ASSERT_TRUE(last.ended()) << "job " << last.job_id();
  ASSERT_EQ(last.steps_size(), 2);
  EXPECT_EQ(last.steps(1).state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(last.steps(1).end_time(), last.end_time());
  // Forgotten, and logged so: nothing of this attempt comes back.
  EXPECT_TRUE(Listed(*core_).empty());
  EXPECT_TRUE(log_.back().has_job_steps() || log_.back().has_job_upsert());
  auto restarted = Fresh();
  restarted->Restore(nullptr, log_);
  EXPECT_TRUE(restarted->steps().States().empty());
}

TEST_F(JobStepsTest, UsageReachesAccountingFromTheStepEndAndTheBatchExit) {
  Step(*core_);
  End(*core_, 0, 0, /*max_rss_kb=*/51200);
  ASSERT_FALSE(accounting_.empty());
  ASSERT_EQ(accounting_.back().steps_size(), 1);
  EXPECT_EQ(accounting_.back().steps(0).usage().max_rss_kb(), 51200u);
  EXPECT_EQ(accounting_.back().steps(0).usage().max_rss_node(), "n2");

  // The batch step's figure comes with its node's exit reports; a report from
  // a node that does not run the script is not the batch step's.
  Effects e;
  for (const char* node : {"n1", "n2"}) {
    for (bool early : {true, false}) {
      wire::JobExitedRequest exited;
      exited.set_job_id(job_);
      exited.set_node(node);
      exited.set_cleanup_follows(early);
      exited.mutable_usage()->set_max_rss_kb(node == std::string("n1") ? 40960 : 7);
      exited.mutable_usage()->set_max_rss_node(node);
      exited.mutable_usage()->set_tasks(1);
      EXPECT_TRUE(core_->ReportExit(exited, kT0 + 30, e).ok());
      Keep(e);
    }
  }
  const wire::AccountingJob& last = accounting_.back();
  ASSERT_TRUE(last.ended()) << "job " << last.job_id();
  EXPECT_EQ(last.state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(last.batch_usage().max_rss_kb(), 40960u);
  EXPECT_EQ(last.batch_usage().max_rss_node(), "n1");
  ASSERT_EQ(last.steps_size(), 1);
  EXPECT_EQ(last.steps(0).usage().max_rss_kb(), 51200u);
  // Logged with the job: a restarted controller still has it.
  auto restarted = Fresh();
  restarted->Restore(nullptr, log_);
  EXPECT_EQ(restarted->FindJob(job_)->batch_usage().max_rss_kb(), 40960u);
}

}  // namespace
}  // namespace rota::ctld
