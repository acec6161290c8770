#include "sched/node_plan.h"

#include <gtest/gtest.h>

#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::MakeNode;

// One node of two sockets with 64 cores and 4 A100s each.
class NodePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNode(model_,
            MakeNode("gpu1", 2, 64, 512000, {{"a100", 4, 0}, {"a100", 4, 1}}, model_.gpu_types));
    usage_ = model_.EmptyUsage(0);
  }
  std::optional<NodeAllocation> Plan(const Request& r, NodeShare share) {
    return PlanNode(model_, 0, usage_, r, share);
  }
  Request Gpus(uint32_t cpus) {
    Request r;
    r.cpus_per_task = cpus;
    r.gpu_type = model_.gpu_types.Find("a100");
    return r;
  }

  ClusterModel model_;
  NodeUsage usage_;
};

TEST_F(NodePlanTest, FourGpusAndSixtyFourCoresTakeOneWholeSocket) {
  std::optional<NodeAllocation> a = Plan(Gpus(64), {1, 4});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpu_indices(), (std::vector<uint32_t>{0, 1, 2, 3}));
  ASSERT_EQ(a->slots.size(), 64u);
  EXPECT_EQ(a->slots.front(), 0u);
  EXPECT_EQ(a->slots.back(), 63u);
}

TEST_F(NodePlanTest, GpusFollowTheSocketThatStillHasCores) {
  // Socket 0 has only 10 free cores left: a 2-GPU, 32-core share goes to socket 1.
  NodeAllocation busy;
  for (uint32_t c = 0; c < 54; ++c) busy.slots.push_back(c);
  ASSERT_TRUE(Take(model_, usage_, busy));
  std::optional<NodeAllocation> a = Plan(Gpus(32), {1, 2});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpu_indices(), (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(a->slots.front(), 64u);
}

TEST_F(NodePlanTest, EnforceBindingRefusesCoresOffTheGpusSocket) {
  // Socket 1's GPUs are all taken; socket 0 has GPUs but only 8 free cores.
  NodeAllocation busy;
  for (uint32_t c = 8; c < 64; ++c) busy.slots.push_back(c);
  busy.gpus = 0xF0;
  ASSERT_TRUE(Take(model_, usage_, busy));
  Request r = Gpus(16);
  ASSERT_TRUE(Plan(r, {1, 1}).has_value());  // Degrades: cores from socket 1
  r.enforce_binding = true;
  EXPECT_FALSE(Plan(r, {1, 1}).has_value());
  r.cpus_per_task = 8;
  std::optional<NodeAllocation> a = Plan(r, {1, 1});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.back(), 7u);
}

// A NodeName line with only CPUs=64 describes 64 sockets of one core: their
// GPUs' socket masks have 32 bits, the last standing for socket 31 and up.
TEST(NodePlanManySocketsTest, GpusOnANodeOfSixtyFourOneCoreSockets) {
  ClusterModel model;
  AddNode(model,
          MakeNode("wide", 64, 1, 512000, {{"a100", 4, -1}, {"a100", 2, 40}}, model.gpu_types));
  NodeUsage usage = model.EmptyUsage(0);
  NodeAllocation busy;  // Sockets 0-47 busy: what is left is 48-63
  for (uint32_t c = 0; c < 48; ++c) busy.slots.push_back(c);
  ASSERT_TRUE(Take(model, usage, busy));
  Request r;
  r.cpus_per_task = 8;
  r.gpu_type = model.gpu_types.Find("a100");
  r.enforce_binding = true;
  // The two GPUs of socket 40 (and up) take cores from sockets 48-55.
  std::optional<NodeAllocation> a = PlanNode(model, 0, usage, r, {1, 6});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpu_indices().size(), 6u);
  ASSERT_EQ(a->slots.size(), 8u);
  EXPECT_EQ(a->slots.front(), 48u);
  EXPECT_TRUE(InSocketMask(model.nodes[0].gpus[5].socket_mask, 63));
  EXPECT_FALSE(InSocketMask(model.nodes[0].gpus[5].socket_mask, 30));
  EXPECT_TRUE(InSocketMask(model.nodes[0].gpus[0].socket_mask, 63));
}

TEST_F(NodePlanTest, GpusPerSocketTakesThemFromEachSocket) {
  Request r = Gpus(2);
  r.gpus_per_socket = 2;
  r.sockets_per_node = 2;
  std::optional<NodeAllocation> a = Plan(r, {1, 0});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->gpu_indices(), (std::vector<uint32_t>{0, 1, 4, 5}));
}

TEST_F(NodePlanTest, MemoryScalesByItsDenominator) {
  Request r = Gpus(4);
  r.memory = MemoryRule::kPerGpu;
  r.mem_mb = 10000;
  EXPECT_EQ(Plan(r, {1, 3})->mem_mb, 30000u);
  r.memory = MemoryRule::kPerCpu;
  r.mem_mb = 1000;
  EXPECT_EQ(Plan(r, {2, 0})->mem_mb, 8000u);
  r.memory = MemoryRule::kWholeNode;
  EXPECT_EQ(Plan(r, {1, 0})->mem_mb, 512000u);
  r.memory = MemoryRule::kPerNode;
  r.mem_mb = 600000;
  EXPECT_FALSE(Plan(r, {1, 0}).has_value());
}

TEST_F(NodePlanTest, CpusPerGpuRaisesTheCores) {
  Request r = Gpus(1);
  r.cpus_per_gpu = 12;
  std::optional<NodeAllocation> a = Plan(r, {1, 3});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.size(), 36u);
}

TEST_F(NodePlanTest, TypedRequestsMatchOnlyTheirType) {
  Request r = Gpus(1);
  r.gpu_type = GpuTypes::kUnknown;
  EXPECT_FALSE(Plan(r, {1, 1}).has_value());
  r.gpu_type = GpuTypes::kAny;
  EXPECT_TRUE(Plan(r, {1, 8}).has_value());
  EXPECT_FALSE(Plan(r, {1, 9}).has_value());
}

TEST_F(NodePlanTest, ExclusiveTakesEveryCoreOfAnIdleNodeOnly) {
  Request r = Gpus(1);
  r.exclusive = true;
  std::optional<NodeAllocation> a = Plan(r, {1, 1});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.size(), 128u);
  NodeAllocation other;
  other.slots = {127};
  ASSERT_TRUE(Take(model_, usage_, other));
  EXPECT_FALSE(Plan(r, {1, 1}).has_value());
}

TEST_F(NodePlanTest, CpuOnlySharesKeepOtherSocketsWhole) {
  NodeAllocation busy;
  busy.slots = {0, 1, 2, 3};
  ASSERT_TRUE(Take(model_, usage_, busy));
  Request r;
  r.cpus_per_task = 8;
  std::optional<NodeAllocation> a = Plan(r, {1, 0});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.front(), 4u);  // The already-used socket, not the whole one
}

// One node of one socket, 4 cores of 2 threads each, 1000 MB.
ClusterModel OneHyperthreadedNode() {
  ClusterModel m;
  NodeShape n = MakeNode("ht", 1, 4, 1000, {}, m.gpu_types);
  n.threads_per_core = 2;
  AddNode(m, n);
  return m;
}

TEST_F(NodePlanTest, ThreadsAreAllocatedWithTheirCore) {
  ClusterModel m = OneHyperthreadedNode();
  Request r;
  r.cpus_per_task = 3;
  r.memory = MemoryRule::kPerCpu;
  r.mem_mb = 100;
  std::optional<NodeAllocation> a = PlanNode(m, 0, m.EmptyUsage(0), r, {1, 0});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.size(), 2u);
  EXPECT_EQ(CpuIds(m.nodes[0], a->slots), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(a->mem_mb, 400u);  // Per CPU allocated, as Slurm counts
}

// --threads-per-core=1 / --hint=nomultithread on a node of 2 threads a core:
// each task gets whole cores of its own, one thread of each used.
TEST_F(NodePlanTest, OneThreadACoreGivesEachTaskWholeCores) {
  ClusterModel m = OneHyperthreadedNode();
  Request r;
  r.cpus_per_task = 1;
  EXPECT_EQ(PlanNode(m, 0, m.EmptyUsage(0), r, {4, 0})->slots.size(), 2u) << "tasks share cores";
  r.threads_per_core = 1;
  std::optional<NodeAllocation> a = PlanNode(m, 0, m.EmptyUsage(0), r, {4, 0});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->slots.size(), 4u);
  EXPECT_EQ(CpuIds(m.nodes[0], a->slots).size(), 8u) << "all threads of the cores are the job's";
  EXPECT_FALSE(PlanNode(m, 0, m.EmptyUsage(0), r, {5, 0}).has_value()) << "four cores only";
  r.cpus_per_task = 3;  // Three threads, one a core: three cores
  EXPECT_EQ(PlanNode(m, 0, m.EmptyUsage(0), r, {1, 0})->slots.size(), 3u);
  r.threads_per_core = 2;  // As many as the node has: no change
  EXPECT_EQ(PlanNode(m, 0, m.EmptyUsage(0), r, {1, 0})->slots.size(), 2u);
}

TEST_F(NodePlanTest, TakeAndGiveBackAreExactInverses) {
  NodeUsage before = usage_;
  std::optional<NodeAllocation> a = Plan(Gpus(10), {1, 3});
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(Take(model_, usage_, *a));
  EXPECT_FALSE(Take(model_, usage_, *a)) << "the same cores twice";
  ASSERT_TRUE(GiveBack(model_, usage_, *a));
  EXPECT_FALSE(GiveBack(model_, usage_, *a)) << "given back twice";
  EXPECT_EQ(usage_.free_slots, before.free_slots);
  EXPECT_EQ(usage_.free_per_socket, before.free_per_socket);
  EXPECT_EQ(usage_.free_gpus, before.free_gpus);
  EXPECT_EQ(usage_.free_mem_mb, before.free_mem_mb);
}

}  // namespace
}  // namespace rota::sched
