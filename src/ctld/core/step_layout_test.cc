#include "ctld/core/step_layout.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

using Tasks = std::vector<uint32_t>;

std::vector<StepNodeCapacity> Nodes(int n, uint32_t cpus, uint32_t gpus = 0) {
  return std::vector<StepNodeCapacity>(n, StepNodeCapacity{cpus, gpus});
}

TEST(StepLayoutTest, DefaultIsOneTaskOnEveryNode) {
  Result<StepLayout> l = LayOutStep(Nodes(3, 4), {});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->num_tasks, 3u);
  EXPECT_EQ(l->tasks_per_node, Tasks({1, 1, 1}));
  EXPECT_EQ(l->node_indices, Tasks({0, 1, 2}));
}

TEST(StepLayoutTest, BlockFillsNodesInOrder) {
  Result<StepLayout> l = LayOutStep(Nodes(2, 2), {.num_tasks = 3});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({2, 1}));
  l = LayOutStep(Nodes(2, 4), {.num_tasks = 4});
  ASSERT_TRUE(l.ok());
  // Each node takes one task first, then the first fills up.
  EXPECT_EQ(l->tasks_per_node, Tasks({3, 1}));
}

TEST(StepLayoutTest, FewTasksUseFewNodes) {
  Result<StepLayout> l = LayOutStep(Nodes(4, 8), {.num_tasks = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->node_indices, Tasks({0, 1}));
  EXPECT_EQ(l->tasks_per_node, Tasks({1, 1}));
  l = LayOutStep(Nodes(4, 8), {.num_tasks = 1, .num_nodes = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({1}));
  EXPECT_NE(l->warning.find("setting nnodes to 1"), std::string::npos);
}

TEST(StepLayoutTest, TasksPerNode) {
  Result<StepLayout> l = LayOutStep(Nodes(2, 4), {.ntasks_per_node = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->num_tasks, 4u);
  EXPECT_EQ(l->tasks_per_node, Tasks({2, 2}));
  l = LayOutStep(Nodes(3, 4), {.num_tasks = 3, .ntasks_per_node = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({2, 1}));
}

TEST(StepLayoutTest, CpusAndGpusPerTaskBoundEachNode) {
  Result<StepLayout> l = LayOutStep(Nodes(2, 8, 2), {.num_tasks = 4, .gpus_per_task = 1});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({2, 2}));
  EXPECT_FALSE(LayOutStep(Nodes(2, 8, 2), {.num_tasks = 5, .gpus_per_task = 1}).ok());
  EXPECT_FALSE(LayOutStep(Nodes(2, 4), {.num_tasks = 3, .cpus_per_task = 4}).ok());
  l = LayOutStep(Nodes(2, 4), {.num_tasks = 2, .cpus_per_task = 4});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({1, 1}));
}

TEST(StepLayoutTest, RefusesMoreNodesOrTasksThanTheJobHas) {
  Result<StepLayout> l = LayOutStep(Nodes(2, 2), {.num_nodes = 3});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("Requested node configuration is not available"),
            std::string::npos);
  l = LayOutStep(Nodes(2, 2), {.num_tasks = 5});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("More processors requested than permitted"),
            std::string::npos);
}

TEST(StepLayoutTest, CyclicDealsTasksRoundTheNodes) {
  StepShape shape{.num_tasks = 5};
  shape.distribution.kind = model::TaskDistribution::kCyclic;
  Result<StepLayout> l = LayOutStep(Nodes(2, 4), shape);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({3, 2}));  // Block: {4, 1}
}

TEST(StepLayoutTest, OvercommitSpreadsMoreTasksThanCpusEvenly) {
  // srun -N2 -n8 -O on two nodes of 2 CPUs: 4 and 4 (without -O: refused).
  Result<StepLayout> l = LayOutStep(Nodes(2, 2), {.num_tasks = 8, .overcommit = true});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->tasks_per_node, Tasks({4, 4}));
  l = LayOutStep(Nodes(2, 2), {.num_tasks = 5, .overcommit = true});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({3, 2}));
  // Other resources still bound it: one GPU per task, 3 GPUs per node.
  l = LayOutStep(Nodes(2, 2, 3), {.num_tasks = 6, .gpus_per_task = 1, .overcommit = true});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, Tasks({3, 3}));
  EXPECT_FALSE(
      LayOutStep(Nodes(2, 2, 3), {.num_tasks = 7, .gpus_per_task = 1, .overcommit = true}).ok());
  // A node without a CPU holds none.
  EXPECT_FALSE(LayOutStep(Nodes(1, 0), {.num_tasks = 2, .overcommit = true}).ok());
}

}  // namespace
}  // namespace rota::ctld
