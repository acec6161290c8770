#include "sched/select.h"

#include <gtest/gtest.h>

#include <random>

#include "sched/earliest_start.h"
#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::AllNodes;
using testing::MakeNode;

std::vector<std::string> Names(const ClusterModel& m, const Selection& s) {
  std::vector<std::string> out;
  if (!s.allocation) return out;
  for (const NodeAllocation& a : s.allocation->nodes) out.push_back(m.nodes[a.node].name);
  return out;
}

void TakeAll(const ClusterModel& m, std::vector<NodeUsage>& usage, const Allocation& a) {
  for (const NodeAllocation& na : a.nodes) ASSERT_TRUE(Take(m, usage[na.node], na));
}

Request GpuJob(const ClusterModel& m, uint32_t gpus, uint32_t cpus = 1) {
  Request r;
  r.gpus_per_node = gpus;
  r.cpus_per_task = cpus;
  r.gpu_type = m.gpu_types.Find("a100");
  return r;
}

TEST(SelectTest, BestFitKeepsWholeNodesForBigJobs) {
  ClusterModel m;
  AddNode(m, MakeNode("g1", 2, 16, 100000, {{"a100", 8}}, m.gpu_types));
  AddNode(m, MakeNode("g2", 2, 16, 100000, {{"a100", 8}}, m.gpu_types));
  std::vector<NodeUsage> usage = m.EmptyUsage();
  // g2 already runs a 6-GPU job: a 2-GPU job goes there, leaving g1 whole.
  NodeAllocation six{1, {0}, 0x3F, 0, 1, false};
  ASSERT_TRUE(Take(m, usage[1], six));
  Selection s = Select(m, usage, AllNodes(m), GpuJob(m, 2));
  EXPECT_EQ(Names(m, s), (std::vector<std::string>{"g2"}));
  EXPECT_EQ(s.allocation->nodes[0].gpu_indices(), (std::vector<uint32_t>{6, 7}));
  Selection big = Select(m, usage, AllNodes(m), GpuJob(m, 8));
  EXPECT_EQ(Names(m, big), (std::vector<std::string>{"g1"}));
}

TEST(SelectTest, CpuJobsPreferNodesWithoutFreeGpus) {
  ClusterModel m;
  AddNode(m, MakeNode("g1", 1, 16, 1000, {{"a100", 4}}, m.gpu_types));
  AddNode(m, MakeNode("c1", 1, 32, 1000, {}, m.gpu_types));
  Request r;
  r.cpus_per_task = 4;
  EXPECT_EQ(Names(m, Select(m, m.EmptyUsage(), AllNodes(m), r)), (std::vector<std::string>{"c1"}));
}

TEST(SelectTest, WeightComesBeforeFit) {
  ClusterModel m;
  NodeShape heavy = MakeNode("n1", 1, 4, 1000, {}, m.gpu_types);
  heavy.weight = 10;
  AddNode(m, heavy);
  AddNode(m, MakeNode("n2", 1, 64, 1000, {}, m.gpu_types));
  EXPECT_EQ(Names(m, Select(m, m.EmptyUsage(), AllNodes(m), Request{})),
            (std::vector<std::string>{"n2"}));
}

TEST(SelectTest, TheCallersRankComesAfterWeightAndBeforeFit) {
  ClusterModel m;
  AddNode(m, MakeNode("n0", 1, 8, 1000, {}, m.gpu_types));
  AddNode(m, MakeNode("n1", 1, 8, 1000, {}, m.gpu_types));
  NodeShape heavy = MakeNode("n2", 1, 8, 1000, {}, m.gpu_types);
  heavy.weight = 5;
  AddNode(m, heavy);
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeAllocation some{0, {0, 1}, 0, 0, 2, false};
  ASSERT_TRUE(Take(m, usage[0], some));  // n0 is the tighter fit
  Request r;
  r.cpus_per_task = 2;
  EXPECT_EQ(Names(m, Select(m, usage, AllNodes(m), r)), (std::vector<std::string>{"n0"}));
  // n0 ranked last: n1, before the fit.
  NodeRank rank = [](uint32_t n) { return n == 0 ? uint64_t{1} : uint64_t{0}; };
  EXPECT_EQ(Names(m, Select(m, usage, AllNodes(m), r, rank)), (std::vector<std::string>{"n1"}));
  // n2 ranked first: Weight still keeps it last, and the fit decides.
  NodeRank n2_first = [](uint32_t n) { return n == 2 ? uint64_t{0} : uint64_t{1}; };
  EXPECT_EQ(Names(m, Select(m, usage, AllNodes(m), r, n2_first)), (std::vector<std::string>{"n0"}));
}

TEST(SelectTest, TasksFillNodesInOrderWhenTheNodeCountIsFree) {
  ClusterModel m;
  for (const char* n : {"n1", "n2", "n3"}) AddNode(m, MakeNode(n, 1, 8, 1000, {}, m.gpu_types));
  Request r;
  r.tasks = 10;
  r.nodes_fixed = false;
  Selection s = Select(m, m.EmptyUsage(), AllNodes(m), r);
  ASSERT_TRUE(s.allocation.has_value());
  ASSERT_EQ(s.allocation->nodes.size(), 2u);
  EXPECT_EQ(s.allocation->nodes[0].tasks, 8u);
  EXPECT_EQ(s.allocation->nodes[1].tasks, 2u);
  r.max_nodes = 1;
  EXPECT_FALSE(Select(m, m.EmptyUsage(), AllNodes(m), r).allocation.has_value());
}

TEST(SelectTest, GpusPerJobSpreadOverTheNodes) {
  ClusterModel m;
  AddNode(m, MakeNode("g1", 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  AddNode(m, MakeNode("g2", 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  Request r;
  r.nodes = 2;
  r.tasks = 2;
  r.gpus_per_job = 6;
  Selection s = Select(m, m.EmptyUsage(), AllNodes(m), r);
  ASSERT_TRUE(s.allocation.has_value());
  EXPECT_EQ(s.allocation->nodes[0].gpu_count() + s.allocation->nodes[1].gpu_count(), 6u);
  EXPECT_GE(s.allocation->nodes[1].gpu_count(), 1u);
  r.gpus_per_job = 9;
  EXPECT_FALSE(Select(m, m.EmptyUsage(), AllNodes(m), r).allocation.has_value());
}

TEST(SelectTest, GpusPerTaskScaleWithTheTasksOnEachNode) {
  ClusterModel m;
  AddNode(m, MakeNode("g1", 1, 8, 1000, {{"a100", 8}}, m.gpu_types));
  AddNode(m, MakeNode("g2", 1, 8, 1000, {{"a100", 8}}, m.gpu_types));
  Request r;
  r.nodes = 2;
  r.tasks = 8;
  r.tasks_per_node = 4;
  r.gpus_per_task = 2;
  Selection s = Select(m, m.EmptyUsage(), AllNodes(m), r);
  ASSERT_TRUE(s.allocation.has_value());
  for (const NodeAllocation& a : s.allocation->nodes) EXPECT_EQ(a.gpu_count(), 8u);
}

TEST(SelectTest, RequiredAndExcludedNodes) {
  ClusterModel m;
  for (const char* n : {"n1", "n2", "n3"}) AddNode(m, MakeNode(n, 1, 8, 1000, {}, m.gpu_types));
  Request r;
  r.nodes = 2;
  r.required_nodes = {2};
  r.excluded_nodes = {0};
  EXPECT_EQ(Names(m, Select(m, m.EmptyUsage(), AllNodes(m), r)),
            (std::vector<std::string>{"n3", "n2"}));
  r.excluded_nodes = {0, 1};
  Selection s = Select(m, m.EmptyUsage(), AllNodes(m), r);
  EXPECT_FALSE(s.allocation.has_value());
}

TEST(SelectTest, CountedAndBracketFeatures) {
  ClusterModel m;
  AddNode(m, MakeNode("a1", 1, 8, 1000, {}, m.gpu_types, {"rack1"}));
  AddNode(m, MakeNode("a2", 1, 8, 1000, {}, m.gpu_types, {"rack2", "bigmem"}));
  AddNode(m, MakeNode("a3", 1, 8, 1000, {}, m.gpu_types, {"rack2"}));
  AddNode(m, MakeNode("a4", 1, 8, 1000, {}, m.gpu_types, {"rack1"}));
  Request r;
  r.nodes = 2;
  r.tasks = 2;
  r.constraint = *FeatureExpr::Parse("bigmem*1");
  std::vector<std::string> got = Names(m, Select(m, m.EmptyUsage(), AllNodes(m), r));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "a2");
  r.constraint = *FeatureExpr::Parse("[rack1|rack2]");
  r.nodes = 2;
  EXPECT_EQ(Names(m, Select(m, m.EmptyUsage(), AllNodes(m), r)),
            (std::vector<std::string>{"a1", "a4"}));
  r.excluded_nodes = {3};
  EXPECT_EQ(Names(m, Select(m, m.EmptyUsage(), AllNodes(m), r)),
            (std::vector<std::string>{"a2", "a3"}));
}

// Two leaf switches of 4 nodes under one spine.
ClusterModel TreeModel() {
  ClusterModel m;
  m.switches = {{"s0", 2, 0}, {"s1", 2, 0}, {"spine", -1, 1}};
  for (int i = 0; i < 8; ++i) {
    NodeShape n = MakeNode("n" + std::to_string(i), 1, 8, 1000, {}, m.gpu_types);
    n.leaf = i < 4 ? 0 : 1;
    AddNode(m, n);
  }
  return m;
}

TEST(SelectTest, TopologyPrefersOneLeafSwitch) {
  ClusterModel m = TreeModel();
  std::vector<NodeUsage> usage = m.EmptyUsage();
  // Leaf s0 has 2 free nodes left, s1 all 4: a 3-node job goes under s1.
  TakeAll(m, usage, Allocation{{{0, {0}, 0, 0, 1, false}, {1, {0}, 0, 0, 1, false}}});
  Request r;
  r.nodes = 3;
  r.tasks = 3;
  r.cpus_per_task = 8;
  Selection s = Select(m, usage, AllNodes(m), r);
  EXPECT_EQ(Names(m, s), (std::vector<std::string>{"n4", "n5", "n6"}));
  EXPECT_EQ(s.leaf_switches, 1u);
  // Two nodes fit under s0's free pair, the tightest leaf.
  r.nodes = 2;
  r.tasks = 2;
  EXPECT_EQ(Names(m, Select(m, usage, AllNodes(m), r)), (std::vector<std::string>{"n2", "n3"}));
}

TEST(SelectTest, SwitchesWaitUntilTheirTimeIsOver) {
  ClusterModel m = TreeModel();
  std::vector<NodeUsage> usage = m.EmptyUsage();
  Request r;
  r.nodes = 6;
  r.tasks = 6;
  r.max_leaf_switches = 1;
  Selection s = Select(m, usage, AllNodes(m), r);
  EXPECT_FALSE(s.allocation.has_value());
  EXPECT_NE(s.detail.find("leaf switch"), std::string::npos);
  r.switches_wait_over = true;
  s = Select(m, usage, AllNodes(m), r);
  ASSERT_TRUE(s.allocation.has_value());
  EXPECT_EQ(s.leaf_switches, 2u);
}

TEST(SelectTest, EarliestStartWalksTheReleases) {
  ClusterModel m;
  AddNode(m, MakeNode("g1", 1, 8, 1000, {{"a100", 4}}, m.gpu_types));
  std::vector<NodeUsage> usage = m.EmptyUsage();
  NodeAllocation a{0, {0, 1}, 0x3, 0, 1, false};
  NodeAllocation b{0, {2, 3}, 0xC, 0, 1, false};
  ASSERT_TRUE(Take(m, usage[0], a));
  ASSERT_TRUE(Take(m, usage[0], b));
  Request r = GpuJob(m, 3);
  std::optional<StartEstimate> e = EarliestStart(m, usage, AllNodes(m), r, 100,
                                                 {{500, Allocation{{b}}}, {300, Allocation{{a}}}});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->time, 500);
  r.gpus_per_node = 2;
  e = EarliestStart(m, usage, AllNodes(m), r, 100,
                    {{500, Allocation{{b}}}, {300, Allocation{{a}}}});
  EXPECT_EQ(e->time, 300);
  r.gpus_per_node = 5;
  EXPECT_FALSE(EarliestStart(m, usage, AllNodes(m), r, 100, {}).has_value());
}

// Random jobs start and end on a mixed cluster: nothing is ever given twice,
// and after every job ended the cluster is exactly as empty as it began.
TEST(SelectTest, PropertyNeverOvercommitsAndFreesExactly) {
  ClusterModel m;
  for (int i = 0; i < 6; ++i) {
    AddNode(m, MakeNode("g" + std::to_string(i), 2, 8, 64000,
                        {{"a100", 2, 0}, {i % 2 ? "h100" : "a100", 2, 1}}, m.gpu_types));
  }
  for (int i = 0; i < 3; ++i)
    AddNode(m, MakeNode("c" + std::to_string(i), 2, 16, 128000, {}, m.gpu_types));
  const std::vector<NodeUsage> empty = m.EmptyUsage();
  std::vector<NodeUsage> usage = empty;
  std::mt19937 rng(42);
  std::vector<Allocation> running;
  int started = 0;
  for (int step = 0; step < 3000; ++step) {
    if (!running.empty() && rng() % 3 == 0) {
      size_t k = rng() % running.size();
      for (const NodeAllocation& na : running[k].nodes)
        ASSERT_TRUE(GiveBack(m, usage[na.node], na));
      running.erase(running.begin() + static_cast<long>(k));
      continue;
    }
    Request r;
    r.nodes = 1 + rng() % 3;
    r.tasks = r.nodes * (1 + rng() % 4);
    r.cpus_per_task = 1 + rng() % 4;
    r.memory = MemoryRule::kPerCpu;
    r.mem_mb = 1000 * (1 + rng() % 4);
    switch (rng() % 4) {
      case 0:
        r.gpus_per_node = 1 + rng() % 4;
        break;
      case 1:
        r.gpus_per_job = r.nodes + rng() % 3;
        break;
      case 2:
        r.gpus_per_task = 1;
        r.tasks_per_node = 1 + rng() % 2;
        r.tasks = r.nodes * r.tasks_per_node;
        break;
      default:
        break;
    }
    if (rng() % 4 == 0) r.gpu_type = m.gpu_types.Find(rng() % 2 ? "a100" : "h100");
    r.exclusive = rng() % 10 == 0;
    Selection s = Select(m, usage, AllNodes(m), r);
    if (!s.allocation) continue;
    ++started;
    ASSERT_EQ(s.allocation->nodes.size(), r.nodes);
    uint32_t tasks = 0;
    for (const NodeAllocation& na : s.allocation->nodes) {
      tasks += na.tasks;
      if (r.gpus_per_node > 0) {
        EXPECT_EQ(na.gpu_count(), r.gpus_per_node);
      }
      for (uint32_t g : na.gpu_indices()) {
        if (r.gpu_type >= 0) {
          EXPECT_EQ(m.nodes[na.node].gpus[g].type, r.gpu_type);
        }
      }
      // Take refuses anything already taken: that is the over-commit check.
      ASSERT_TRUE(Take(m, usage[na.node], na)) << "step " << step;
      EXPECT_LE(usage[na.node].free_mem_mb, m.nodes[na.node].memory_mb);
    }
    EXPECT_EQ(tasks, r.tasks);
    if (r.gpus_per_job > 0) {
      uint32_t g = 0;
      for (const NodeAllocation& na : s.allocation->nodes) g += na.gpu_count();
      EXPECT_EQ(g, r.gpus_per_job);
    }
    running.push_back(std::move(*s.allocation));
  }
  EXPECT_GT(started, 300);
  for (const Allocation& a : running) {
    for (const NodeAllocation& na : a.nodes) ASSERT_TRUE(GiveBack(m, usage[na.node], na));
  }
  for (size_t i = 0; i < usage.size(); ++i) {
    EXPECT_EQ(usage[i].free_slots, empty[i].free_slots);
    EXPECT_EQ(usage[i].free_gpus, empty[i].free_gpus);
    EXPECT_EQ(usage[i].free_mem_mb, empty[i].free_mem_mb);
    EXPECT_EQ(usage[i].allocations, 0u);
  }
}

}  // namespace
}  // namespace rota::sched
