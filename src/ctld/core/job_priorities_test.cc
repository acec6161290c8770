// The controller core under priority/multifactor: priorities at submit, their
// periodic recomputation (kept out of the log), the main pass's order, an
// administrator's fixed value and the breakdown sprio reads.

#include <gtest/gtest.h>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

class PriorityCoreTest : public testing::CoreTest {
 protected:
  void SetUp() override {
    // 2 nodes x 4 CPUs; partition factors 1 and 4. No node has registered.
    Start(
        "GresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
        "PriorityType=priority/multifactor\nPriorityWeightAge=700\n"
        "PriorityWeightJobSize=1000\nPriorityWeightPartition=400\n"
        "PriorityWeightTRES=GRES/gpu=800\nPriorityMaxAge=7-0\nPriorityCalcPeriod=1\n"
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
        "PriorityJobFactor=1\n"
        "PartitionName=high Nodes=n[1-2] PriorityJobFactor=4\n",
        /*register_nodes=*/false);
  }

  uint32_t Submit(const SpecEdit& edit) { return SubmitOkAs(alice_, edit); }
  uint32_t PriorityOf(uint32_t id) { return Job(id).priority(); }
  std::string StateOf(uint32_t id) {
    return Job(id).state() == wire::JOB_STATE_RUNNING ? "RUNNING" : "PENDING";
  }
};

TEST_F(PriorityCoreTest, SubmitComputesTheWeightedSum) {
  // 1 CPU on 1 node: (1/2 + 1/8) / 2 x 1000 = 312.5; batch 1/4 x 400 = 100.
  uint32_t small = Submit([](auto&) {});
  EXPECT_EQ(PriorityOf(small), 412u);
  // 2 GPUs of 4: 400 more; partition high: 400 instead of 100.
  uint32_t gpu = Submit([](auto& s) {
    s.set_gres("gpu:2");
    s.set_partition("high");
  });
  EXPECT_EQ(PriorityOf(gpu), 312u + 400u + 400u);
  uint32_t nice = Submit([](auto& s) { s.set_nice(12); });
  EXPECT_EQ(PriorityOf(nice), 400u);
}

TEST_F(PriorityCoreTest, RecomputationAddsAgeWithoutLoggingRecords) {
  uint32_t id = Submit([](auto&) {});  // No node has registered: it stays pending.
  Tick();
  EXPECT_EQ(PriorityOf(id), 412u);
  now_ += 3 * 86400 + 43200;  // Half of PriorityMaxAge (7 days): 350 more.
  Effects e = Tick();
  EXPECT_EQ(PriorityOf(id), 762u);
  for (const wire::StateRecord& r : e.records) EXPECT_FALSE(r.has_job_upsert());
  now_ += 30 * 86400;  // Capped at PriorityMaxAge.
  Tick();
  EXPECT_EQ(PriorityOf(id), 1112u);
  ASSERT_TRUE(core_->NextWakeTime().has_value());  // Wakes again within the period.
  EXPECT_LE(*core_->NextWakeTime(), now_ + 60);
}

TEST_F(PriorityCoreTest, MainPassStartsTheHigherMultifactorPriorityFirst) {
  Effects e;
  ASSERT_TRUE(core_->NodeRegistered("n1", kT0, now_, e).ok());
  ASSERT_TRUE(core_->NodeRegistered("n2", kT0, now_, e).ok());
  uint32_t blocker = Submit([](auto& s) {
    s.set_min_nodes(2);
    s.set_num_tasks(8);
  });
  Tick();
  ASSERT_EQ(StateOf(blocker), "RUNNING");
  // Submitted first, but small: lower priority than the whole-cluster job.
  uint32_t small = Submit([](auto&) {});
  uint32_t whole = Submit([](auto& s) {
    s.set_min_nodes(2);
    s.set_num_tasks(8);
  });
  EXPECT_GT(PriorityOf(whole), PriorityOf(small));
  Tick();
  Effects exited;
  ASSERT_TRUE(core_->JobExited(blocker, 0, now_, exited).ok());
  Tick();
  EXPECT_EQ(StateOf(whole), "RUNNING");
  EXPECT_EQ(StateOf(small), "PENDING");
}

TEST_F(PriorityCoreTest, AdministratorsPriorityIsKeptByRecomputation) {
  uint32_t id = Submit([](auto&) {});
  wire::UpdateJobRequest req;
  req.add_job_ids(std::to_string(id));
  (*req.mutable_fields())["Priority"] = "5";
  Effects e;
  wire::UpdateJobResponse r = core_->UpdateJobs(req, root_, now_, e);
  ASSERT_EQ(r.errors_size(), 0) << r.errors(0);
  now_ += 86400;
  Tick();
  EXPECT_EQ(PriorityOf(id), 5u);
  // The mark survives a restart of the controller (it is part of the record).
  ControllerCore restarted(config_);
  wire::StateSnapshot snap = core_->Snapshot();
  restarted.Restore(&snap, {});
  Effects later;
  restarted.Tick(now_ + 86400, later);
  EXPECT_EQ(restarted.FindJob(id)->priority(), 5u);
  // Held and released: the priority is computed again (412 + one day's age, 100).
  wire::UpdateJobRequest hold;
  hold.add_job_ids(std::to_string(id));
  hold.set_action("hold");
  ASSERT_EQ(core_->UpdateJobs(hold, root_, now_, e).errors_size(), 0);
  EXPECT_EQ(PriorityOf(id), 0u);
  hold.set_action("release");
  ASSERT_EQ(core_->UpdateJobs(hold, root_, now_, e).errors_size(), 0);
  EXPECT_EQ(PriorityOf(id), 512u);
  now_ += 86400;
  Tick();
  EXPECT_EQ(PriorityOf(id), 612u);
}

TEST_F(PriorityCoreTest, BreakdownListsPendingJobsWithTheirFactors) {
  uint32_t a = Submit([](auto& s) { s.set_gres("gpu:1"); });
  uint32_t b = Submit([](auto& s) { s.set_partition("high"); });
  now_ += 7 * 86400;
  wire::PriorityRequest all;
  wire::PriorityResponse out = core_->DescribePriorities(all, now_);
  EXPECT_EQ(out.priority_type(), "priority/multifactor");
  EXPECT_EQ(out.weights().age(), 700u);
  EXPECT_EQ(out.weights().tres(), "gres/gpu=800");
  ASSERT_EQ(out.rows_size(), 2);
  EXPECT_EQ(out.rows(0).job_id(), a);
  EXPECT_EQ(out.rows(0).user(), "alice");
  EXPECT_DOUBLE_EQ(out.rows(0).weighted().age(), 700);
  EXPECT_DOUBLE_EQ(out.rows(0).normalized().job_size(), 0.3125);
  EXPECT_EQ(out.rows(0).weighted().tres(), "gres/gpu=200");
  EXPECT_EQ(out.rows(0).normalized().tres(), "gres/gpu=0.25");
  wire::PriorityRequest high;
  high.add_partitions("high");
  out = core_->DescribePriorities(high, now_);
  ASSERT_EQ(out.rows_size(), 1);
  EXPECT_EQ(out.rows(0).job_id(), b);
  EXPECT_DOUBLE_EQ(out.rows(0).weighted().partition(), 400);
}

}  // namespace
}  // namespace rota::ctld
