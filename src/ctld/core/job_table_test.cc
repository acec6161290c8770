#include "ctld/core/job_table.h"

#include <gtest/gtest.h>

#include <set>

#include "sched/cluster_model.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

wire::JobRecord Job(uint32_t id, const std::string& name = "job") {
  wire::JobRecord job;
  job.set_job_id(id);
  job.mutable_spec()->set_name(name);
  job.set_state(wire::JOB_STATE_PENDING);
  return job;
}

std::set<uint32_t> LiveIds(const JobTable& table) {
  std::set<uint32_t> ids;
  for (const auto& [id, live] : table.live()) {
    EXPECT_EQ(*live, table.at(id));  // The table's own record
    ids.insert(id);
  }
  return ids;
}

TEST(JobTableTest, APublishedViewNeverSeesALaterChange) {
  JobTable table(1);
  table.Insert(Job(1, "before"));
  std::shared_ptr<const JobView> view = table.Publish();
  ASSERT_EQ(view->size(), 1u);

  table.Mutable(1).mutable_spec()->set_name("after");
  EXPECT_EQ((*view)[0]->spec().name(), "before");  // The view kept its copy
  EXPECT_EQ(table.Find(1)->spec().name(), "after");

  std::shared_ptr<const JobView> next = table.Publish();
  EXPECT_NE(next, view);
  EXPECT_EQ((*next)[0]->spec().name(), "after");
}

TEST(JobTableTest, AnUnsharedRecordChangesInPlaceAndTheViewIsReusedUntilAChange) {
  JobTable table(1);
  table.Insert(Job(1));
  const wire::JobRecord* before = table.Find(1);
  table.Mutable(1).set_priority(7);
  EXPECT_EQ(table.Find(1), before);  // No view shared it: no copy

  std::shared_ptr<const JobView> view = table.Publish();
  EXPECT_EQ(table.Publish(), view);
  table.Touch();
  EXPECT_NE(table.Publish(), view);
}

TEST(JobTableTest, NewIdsSkipLiveJobsAndNeverGoBelowWhatWasSeen) {
  JobTable table(10);
  EXPECT_EQ(table.next_id(), 10u);
  table.Insert(Job(11));
  EXPECT_EQ(table.next_id(), 12u);  // An inserted job raises the next id past it
  EXPECT_EQ(table.AllocateId(), 12u);
  table.RaiseNextId(20);
  table.RaiseNextId(15);  // Never lowered
  EXPECT_EQ(table.next_id(), 20u);

  JobTable wrapped(1);
  wrapped.Insert(Job(3));
  wrapped.Insert(Job(1));
  // Ids 1 and 3 are live: a table whose counter was at 1 would hand out 4.
  EXPECT_EQ(wrapped.AllocateId(), 4u);
}

// The passes and timers walk the live ids only: every job not finished must
// be among them, whatever path made it live (a requeue goes through Mutable).
TEST(JobTableTest, LiveIdsHoldEveryUnfinishedJobAndFinishedOnesQueueByEnd) {
  JobTable table(1);
  for (uint32_t id : {1u, 2u, 3u, 4u}) table.Insert(Job(id));
  auto finish = [&](uint32_t id, int64_t end) {
    wire::JobRecord& j = table.Mutable(id);
    j.set_state(wire::JOB_STATE_COMPLETED);
    j.set_end_time(end);
  };
  finish(3, 100);
  finish(1, 200);
  table.Mutable(4).set_state(wire::JOB_STATE_RUNNING);
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{1, 2, 3, 4}));  // Not pruned yet
  table.PruneFinished();
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{2, 4}));
  EXPECT_EQ(table.NextFinishedEnd(), 100);

  // Requeued: live again, and not purged on its old end.
  table.Mutable(3).set_state(wire::JOB_STATE_PENDING);
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{2, 3, 4}));
  table.PruneFinished();
  EXPECT_TRUE(table.TakeFinishedBy(150).empty());
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{2, 3, 4}));

  // It finishes again, later: queued by its new end.
  finish(3, 300);
  table.PruneFinished();
  EXPECT_EQ(table.TakeFinishedBy(250), (std::vector<uint32_t>{1}));
  EXPECT_EQ(table.NextFinishedEnd(), 300);
  table.Erase(3);
  EXPECT_TRUE(table.TakeFinishedBy(1000).empty());  // Gone before its purge
  EXPECT_EQ(table.NextFinishedEnd(), std::nullopt);
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{2, 4}));
}

// The backfill pass clears the plan of a job that stopped waiting, walking
// only the live ids: a job cancelled with a plan on it must stay among them.
TEST(JobTableTest, AFinishedJobWithAPlanStaysLiveUntilThePlanIsCleared) {
  JobTable table(1);
  table.Insert(Job(1));
  table.Mutable(1).set_sched_start_time(500);
  table.Mutable(1).set_state(wire::JOB_STATE_CANCELLED);
  table.PruneFinished();
  EXPECT_EQ(LiveIds(table), (std::set<uint32_t>{1}));
  table.Mutable(1).clear_sched_start_time();
  table.PruneFinished();
  EXPECT_TRUE(LiveIds(table).empty());
}

TEST(JobTableTest, AnInlineScriptMovesToThePayloadsAndLeavesWithTheJob) {
  JobTable table(1);
  wire::JobRecord job = Job(5);
  job.mutable_spec()->set_script("#!/bin/sh\necho hi\n");
  job.mutable_spec()->add_environment("A=1");
  table.Insert(job);

  EXPECT_TRUE(table.Find(5)->spec().script().empty());
  EXPECT_EQ(table.Find(5)->spec().environment_size(), 0);
  std::shared_ptr<const wire::JobPayload> payload = table.FindPayload(*table.Find(5));
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(payload->script(), "#!/bin/sh\necho hi\n");
  ASSERT_EQ(payload->environment_size(), 1);
  EXPECT_EQ(payload->environment(0), "A=1");

  // An array task reads its array's payload.
  wire::JobRecord task = Job(6);
  task.set_array_job_id(5);
  table.Insert(task);
  ASSERT_NE(table.FindPayload(*table.Find(6)), nullptr);

  table.Erase(5);
  EXPECT_EQ(table.Find(5), nullptr);
  EXPECT_FALSE(table.contains(5));
  EXPECT_TRUE(table.payloads().empty());
  EXPECT_EQ(table.FindPayload(*table.Find(6)), nullptr);
}

class JobTableShapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = rota::testing::LoadConfigFiles(
        dir_, {"ClusterName=c\nSlurmctldHost=h\nGresTypes=gpu\n"
               "NodeName=n[1-2] CPUs=8 RealMemory=16000 Gres=gpu:a100:4\n"
               "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n",
               "NodeName=n[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
    model_ = sched::BuildClusterModel(*config_);
    wire::JobRecord job = Job(1);
    job.mutable_spec()->set_gpus_per_node("1");
    table_.Insert(job);
  }
  uint32_t GpusPerNode() {
    Result<JobShape> shape =
        table_.ShapeOf(*table_.Find(1), config_->partitions[0], *config_, model_);
    EXPECT_TRUE(shape.ok()) << shape.status().message();
    return shape.ok() ? shape->request.gpus_per_node : 0;
  }

  rota::testing::TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  sched::ClusterModel model_;
  JobTable table_{1};
};

TEST_F(JobTableShapeTest, AShapeIsKeptAcrossChangesOutsideTheRequestAndRemadeOnReplace) {
  EXPECT_EQ(GpusPerNode(), 1u);
  table_.Mutable(1).set_reason("Resources");  // Not the request: the shape stays
  EXPECT_EQ(GpusPerNode(), 1u);

  wire::JobRecord updated = *table_.Find(1);
  updated.mutable_spec()->set_gpus_per_node("2");
  table_.Replace(1, updated);
  EXPECT_EQ(GpusPerNode(), 2u);

  wire::JobRecord again = *table_.Find(1);
  again.mutable_spec()->set_gpus_per_node("3");
  table_.Insert(again);  // A record logged again (recovery) replaces the shape too
  EXPECT_EQ(GpusPerNode(), 3u);
}

#ifndef NDEBUG
TEST_F(JobTableShapeTest, ARequestChangedBehindTheTablesBackStopsADebugBuild) {
  EXPECT_EQ(GpusPerNode(), 1u);
  table_.Mutable(1).mutable_spec()->set_gpus_per_node("2");
  EXPECT_DEATH(GpusPerNode(), "request changed without Replace");
}
#endif

}  // namespace
}  // namespace rota::ctld
