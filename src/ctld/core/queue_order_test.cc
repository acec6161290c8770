#include "ctld/core/queue_order.h"

#include <gtest/gtest.h>

#include <memory>

#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

// One 1-CPU node shared by a low-tier and a high-tier partition.
constexpr const char* kTwoTiers =
    "SlurmdTimeout=0\n"
    "SchedulerType=sched/builtin\n"
    "NodeName=n1 CPUs=1 RealMemory=1000\n"
    "PartitionName=low Nodes=n1 Default=YES PriorityTier=1\n"
    "PartitionName=high Nodes=n1 PriorityTier=10\n";

wire::JobRecord Job(uint32_t id, const std::string& partition, uint32_t priority, int64_t submit) {
  wire::JobRecord j;
  j.set_job_id(id);
  j.mutable_spec()->set_partition(partition);
  j.set_priority(priority);
  j.set_submit_time(submit);
  return j;
}

TEST(QueueOrder, TierFirstThenPriorityThenAgeThenId) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string("ClusterName=c\nSlurmctldHost=h\n") + kTwoTiers});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const conf::ClusterConfig& config = **loaded.config;
  wire::JobRecord a = Job(1, "low", 900, 10);  // Highest priority, low tier
  wire::JobRecord b = Job(2, "high", 5, 30);   // High tier, younger
  wire::JobRecord c = Job(3, "high", 5, 20);   // High tier, same priority, older
  wire::JobRecord d = Job(4, "high", 50, 40);  // High tier, higher priority
  wire::JobRecord e = Job(5, "gone", 999, 0);  // Unknown partition: last
  wire::JobRecord f = Job(6, "high", 5, 20);   // Same as c but a later id
  std::vector<const wire::JobRecord*> queue = {&a, &b, &c, &d, &e, &f};
  SortQueue(queue, config);
  std::vector<uint32_t> ids;
  for (const wire::JobRecord* j : queue) ids.push_back(j->job_id());
  EXPECT_EQ(ids, (std::vector<uint32_t>{4, 3, 6, 2, 1, 5}));
}

class QueueOrderCoreTest : public testing::CoreTest {};

TEST_F(QueueOrderCoreTest, MainPassServesTheHigherTierFirst) {
  Start(kTwoTiers);
  auto submit = [&](const std::string& partition, int64_t at) {
    now_ = at;
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_partition(partition);
      s.set_num_tasks(1);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  };
  // The low-tier job is older (and so not behind on priority), yet the
  // high-tier one gets the only CPU.
  uint32_t low = submit("low", kT0 - 600);
  uint32_t high = submit("high", kT0);
  now_ = kT0;
  Tick();
  EXPECT_EQ(model::JobStateName(Job(high).state()), "RUNNING");
  EXPECT_EQ(model::JobStateName(Job(low).state()), "PENDING");
}

// Slurm's main pass: a job that does not fit holds back its partition, and
// the jobs after it of other partitions keep off that partition's nodes, so a
// low tier's jobs do not fill the nodes a wide high-tier job waits for.
TEST_F(QueueOrderCoreTest, ABlockedPartitionsNodesAreKeptForIt) {
  Start(
      "SlurmdTimeout=0\n"
      "SchedulerType=sched/builtin\n"
      "NodeName=n[1-3] CPUs=1 RealMemory=1000\n"
      "PartitionName=low Nodes=n[1-3] Default=YES PriorityTier=1\n"
      "PartitionName=high Nodes=n[1-2] PriorityTier=10\n");
  auto submit = [&](const std::string& partition, uint32_t nodes) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_partition(partition);
      s.set_num_tasks(nodes);
      s.set_min_nodes(nodes);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  };
  const uint32_t first = submit("low", 1);
  Tick();
  ASSERT_EQ(model::JobStateName(Job(first).state()), "RUNNING");
  ASSERT_EQ(Job(first).nodes(0), "n1");
  const uint32_t wide = submit("high", 2);
  const uint32_t low1 = submit("low", 1);
  const uint32_t low2 = submit("low", 1);
  Tick();
  EXPECT_EQ(model::JobStateName(Job(wide).state()), "PENDING");
  EXPECT_EQ(Job(wide).reason(), "Resources");
  // n2 is free, but it is the high partition's: low1 runs on n3 ...
  ASSERT_EQ(model::JobStateName(Job(low1).state()), "RUNNING");
  EXPECT_EQ(Job(low1).nodes(0), "n3");
  // ... and low2 waits, though n2 is idle.
  EXPECT_EQ(model::JobStateName(Job(low2).state()), "PENDING");
  EXPECT_EQ(Job(low2).reason(), "Resources");
  // Once n1 is free, the wide job takes n[1-2].
  now_ += 60;
  Effects e;
  ASSERT_TRUE(core_->JobExited(first, 0, now_, e).ok());
  Tick();
  EXPECT_EQ(model::JobStateName(Job(wide).state()), "RUNNING");
  EXPECT_EQ(model::JobStateName(Job(low2).state()), "PENDING");
}

// bf_min_age_reserve: a job that does not fit holds back the jobs after it
// only once it has been eligible that long, in the main pass as in backfill.
TEST_F(QueueOrderCoreTest, AYoungMisfitHoldsBackNoOneUnderMinAgeReserve) {
  Start(
      "SlurmdTimeout=0\n"
      "SchedulerType=sched/builtin\n"
      "SchedulerParameters=bf_min_age_reserve=600\n"
      "NodeName=n[1-3] CPUs=1 RealMemory=1000\n"
      "PartitionName=p Nodes=n[1-3] Default=YES\n");
  auto submit = [&](uint32_t nodes) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_num_tasks(nodes);
      s.set_min_nodes(nodes);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  };
  const uint32_t first = submit(1);
  Tick();
  ASSERT_EQ(model::JobStateName(Job(first).state()), "RUNNING");
  const uint32_t wide = submit(3);
  now_ += 1;
  const uint32_t small1 = submit(1);
  Tick();
  EXPECT_EQ(Job(wide).reason(), "Resources");
  EXPECT_EQ(model::JobStateName(Job(small1).state()), "RUNNING");  // wide is 1 s old
  now_ += 600;
  const uint32_t small2 = submit(1);
  Tick();
  EXPECT_EQ(model::JobStateName(Job(wide).state()), "PENDING");
  EXPECT_EQ(model::JobStateName(Job(small2).state()), "PENDING");  // n3 is free, but kept
  EXPECT_EQ(Job(small2).reason(), "Priority");
}

// As in Slurm: a job that named every node it needs (-w) and does not fit
// holds back no one in its partition; only its nodes are kept off.
TEST_F(QueueOrderCoreTest, AJobPinnedToABusyNodeHoldsBackNoOne) {
  Start(
      "SlurmdTimeout=0\n"
      "SchedulerType=sched/builtin\n"
      "NodeName=n[1-3] CPUs=1 RealMemory=1000\n"
      "PartitionName=p Nodes=n[1-3] Default=YES\n");
  auto submit = [&](const std::string& nodelist) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_num_tasks(1);
      s.set_nodelist(nodelist);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  };
  const uint32_t running = submit("n3");
  Tick();
  ASSERT_EQ(model::JobStateName(Job(running).state()), "RUNNING");
  const uint32_t pinned = submit("n3");
  const uint32_t any1 = submit("");
  const uint32_t any2 = submit("");
  const uint32_t any3 = submit("");
  Tick();
  EXPECT_EQ(Job(pinned).reason(), "Resources");
  EXPECT_EQ(model::JobStateName(Job(any1).state()), "RUNNING");
  EXPECT_EQ(model::JobStateName(Job(any2).state()), "RUNNING");
  // n[1-2] are taken; n3 is kept for the pinned job: the last one waits.
  EXPECT_EQ(model::JobStateName(Job(any3).state()), "PENDING");
  EXPECT_EQ(Job(any3).reason(), "Resources");
}

}  // namespace
}  // namespace rota::ctld
