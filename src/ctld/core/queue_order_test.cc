#include "ctld/core/queue_order.h"

#include <gtest/gtest.h>

#include <memory>

#include "ctld/core/controller_core.h"
#include "model/job_state.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr int64_t kT0 = 1'800'000'000;

// One 1-CPU node shared by a low-tier and a high-tier partition.
std::shared_ptr<const conf::ClusterConfig> TwoTiers(TempDir& dir) {
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\nSlurmdTimeout=0\n"
                                      "SchedulerType=sched/builtin\n"
                                      "NodeName=n1 CPUs=1 RealMemory=1000\n"
                                      "PartitionName=low Nodes=n1 Default=YES PriorityTier=1\n"
                                      "PartitionName=high Nodes=n1 PriorityTier=10\n"});
  EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
  return loaded.config.ok() ? *loaded.config : nullptr;
}

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
  auto config = TwoTiers(dir);
  ASSERT_NE(config, nullptr);
  wire::JobRecord a = Job(1, "low", 900, 10);  // Highest priority, low tier
  wire::JobRecord b = Job(2, "high", 5, 30);   // High tier, younger
  wire::JobRecord c = Job(3, "high", 5, 20);   // High tier, same priority, older
  wire::JobRecord d = Job(4, "high", 50, 40);  // High tier, higher priority
  wire::JobRecord e = Job(5, "gone", 999, 0);  // Unknown partition: last
  wire::JobRecord f = Job(6, "high", 5, 20);   // Same as c but a later id
  std::vector<const wire::JobRecord*> queue = {&a, &b, &c, &d, &e, &f};
  SortQueue(queue, *config);
  std::vector<uint32_t> ids;
  for (const wire::JobRecord* j : queue) ids.push_back(j->job_id());
  EXPECT_EQ(ids, (std::vector<uint32_t>{4, 3, 6, 2, 1, 5}));
}

TEST(QueueOrder, MainPassServesTheHigherTierFirst) {
  TempDir dir;
  auto config = TwoTiers(dir);
  ASSERT_NE(config, nullptr);
  ControllerCore core(config);
  Effects e;
  ASSERT_TRUE(core.NodeRegistered("n1", kT0, kT0, e).ok());
  auto submit = [&](const std::string& partition, int64_t at) {
    wire::SubmitJobRequest req;
    req.mutable_spec()->set_partition(partition);
    req.mutable_spec()->set_num_tasks(1);
    req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    auto r = core.Submit(req, Caller{1000, 1000, "alice", "alice", false}, at, e);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->job_id() : 0;
  };
  // The low-tier job is older (and so not behind on priority), yet the
  // high-tier one gets the only CPU.
  uint32_t low = submit("low", kT0 - 600);
  uint32_t high = submit("high", kT0);
  core.Tick(kT0, e);
  EXPECT_EQ(model::JobStateName(core.FindJob(high)->state()), "RUNNING");
  EXPECT_EQ(model::JobStateName(core.FindJob(low)->state()), "PENDING");
}

}  // namespace
}  // namespace rota::ctld
