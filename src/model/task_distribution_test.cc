#include "model/task_distribution.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

using Ids = std::vector<uint32_t>;

TaskDistribution Parsed(const char* text) { return ParseTaskDistribution(text).value(); }

TEST(TaskDistributionTest, ParsesTheNodeLevelPart) {
  EXPECT_EQ(Parsed("").kind, TaskDistribution::kBlock);
  EXPECT_EQ(Parsed("block:cyclic").kind, TaskDistribution::kBlock);
  EXPECT_EQ(Parsed("*").kind, TaskDistribution::kBlock);
  EXPECT_EQ(Parsed("cyclic:block,Pack").kind, TaskDistribution::kCyclic);
  EXPECT_EQ(Parsed("plane=4").kind, TaskDistribution::kPlane);
  EXPECT_EQ(Parsed("plane=4").plane, 4u);
  EXPECT_EQ(Parsed("arbitrary").kind, TaskDistribution::kArbitrary);
  for (const char* bad : {"sideways", "plane=0", "plane=x", "plane", "block:diagonal",
                          "block:cyclic:sideways", "block:block:block:block", "cyclic,Tight"}) {
    EXPECT_EQ(ParseTaskDistribution(bad).status().message(), "Invalid --distribution specification")
        << bad;
  }
}

TEST(TaskDistributionTest, TheSocketsLevelDefaultsToCyclic) {
  EXPECT_EQ(Parsed("").sockets, TaskDistribution::kSocketCyclic);
  EXPECT_EQ(Parsed("cyclic").sockets, TaskDistribution::kSocketCyclic);
  EXPECT_EQ(Parsed("block:block").sockets, TaskDistribution::kSocketBlock);
  EXPECT_EQ(Parsed("*:fcyclic:block").sockets, TaskDistribution::kSocketFcyclic);
  EXPECT_EQ(Parsed("plane=2:*,NoPack").sockets, TaskDistribution::kSocketCyclic);
}

TEST(TaskDistributionTest, CountsPerNodeDealtAsAsked) {
  // 5 tasks, two nodes with room for 4: block fills the first.
  EXPECT_EQ(TasksPerNode(5, {4, 4}, Parsed("block")), Ids({4, 1}));
  EXPECT_EQ(TasksPerNode(5, {4, 4}, Parsed("cyclic")), Ids({3, 2}));
  EXPECT_EQ(TasksPerNode(8, {4, 4}, Parsed("plane=3")), Ids({4, 4}));
  EXPECT_EQ(TasksPerNode(7, {8, 8}, Parsed("plane=3")), Ids({4, 3}));
  // Room bounds every kind.
  EXPECT_EQ(TasksPerNode(6, {2, 8}, Parsed("cyclic")), Ids({2, 4}));
}

TEST(TaskDistributionTest, TaskIdsNodeAfterNode) {
  EXPECT_EQ(TaskIds({2, 2}, Parsed("block")), Ids({0, 1, 2, 3}));
  EXPECT_EQ(TaskIds({2, 2}, Parsed("cyclic")), Ids({0, 2, 1, 3}));
  EXPECT_EQ(TaskIds({3, 2}, Parsed("cyclic")), Ids({0, 2, 4, 1, 3}));
  // plane=2 over 8 tasks: 0 1 | 2 3 | 4 5 | 6 7 dealt n1 n2 n1 n2.
  EXPECT_EQ(TaskIds({4, 4}, Parsed("plane=2")), Ids({0, 1, 4, 5, 2, 3, 6, 7}));
  // A node whose share is full is skipped.
  EXPECT_EQ(TaskIds({1, 3}, Parsed("cyclic")), Ids({0, 1, 2, 3}));
}

TEST(TaskDistributionTest, AStepsIdsOnANode) {
  wire::JobStepRecord step;
  step.add_tasks_per_node(2);
  step.add_tasks_per_node(2);
  EXPECT_EQ(StepTaskIdsOnNode(step, 1), Ids({2, 3}));  // No list: block
  for (uint32_t id : {0, 2, 1, 3}) step.add_task_ids(id);
  EXPECT_EQ(StepTaskIdsOnNode(step, 0), Ids({0, 2}));
  EXPECT_EQ(StepTaskIdsOnNode(step, 1), Ids({1, 3}));
}

TEST(TaskDistributionTest, HostfilesNameEachTasksNode) {
  using Hosts = std::vector<std::string>;
  Result<Hosts> hosts = ParseHostfile("n2\nn1 # the second task\n\nn[3-4],n1\n", 0);
  ASSERT_TRUE(hosts.ok()) << hosts.status().message();
  EXPECT_EQ(*hosts, (Hosts{"n2", "n1", "n3", "n4", "n1"}));
  // -n takes the first lines; more than the file names is an error.
  EXPECT_EQ(ParseHostfile("n2\nn1\nn3\n", 2).value(), (Hosts{"n2", "n1"}));
  EXPECT_EQ(ParseHostfile("n2,n1", 3).status().message(),
            "the hostfile names 2 hosts, fewer than the 3 tasks asked");
  EXPECT_EQ(ParseHostfile("# nothing\n", 0).status().message(), "the hostfile names no host");
  EXPECT_FALSE(ParseHostfile("n[3-1]\n", 0).ok());
}

}  // namespace
}  // namespace rota::model
