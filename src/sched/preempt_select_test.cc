#include "sched/preempt_select.h"

#include <gtest/gtest.h>

#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::AllNodes;
using testing::MakeNode;

// Four 8-core nodes; jobs placed whole-core by hand.
class PreemptSelectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"n1", "n2", "n3", "n4"}) {
      AddNode(model_, MakeNode(name, 1, 8, 8000, {}, model_.gpu_types));
    }
    usage_ = model_.EmptyUsage();
  }

  // A running job holding `cores` cores (from `first`) on `node`.
  PreemptCandidate Running(uint32_t id, uint32_t priority, int64_t start, uint32_t node,
                           uint32_t first, uint32_t cores) {
    PreemptCandidate c{id, priority, start, {}};
    NodeAllocation a;
    a.node = node;
    for (uint32_t s = first; s < first + cores; ++s) a.slots.push_back(s);
    a.tasks = 1;
    c.allocation.nodes.push_back(a);
    EXPECT_TRUE(Take(model_, usage_[node], a));
    return c;
  }

  static Request Cores(uint32_t cores, uint32_t nodes = 1) {
    Request r;
    r.nodes = nodes;
    r.tasks = nodes;
    r.cpus_per_task = cores;
    return r;
  }

  ClusterModel model_;
  std::vector<NodeUsage> usage_;
};

TEST_F(PreemptSelectTest, LowestPriorityGoesFirst) {
  std::vector<PreemptCandidate> c;
  for (uint32_t n = 0; n < 4; ++n) c.push_back(Running(10 + n, n == 2 ? 5 : 50, 100, n, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, AllNodes(model_), Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{12}));
  ASSERT_EQ(plan->allocation.nodes.size(), 1u);
  EXPECT_EQ(plan->allocation.nodes[0].node, 2u);
}

TEST_F(PreemptSelectTest, YoungestGoesFirstAmongEqualPriorities) {
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 10, 100, 0, 0, 8));
  c.push_back(Running(2, 10, 300, 1, 0, 8));  // Started last: lost least work
  c.push_back(Running(3, 10, 200, 2, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {0, 1, 2}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2}));
}

// preempt_youngest_first: the latest start goes first, whatever its
// priority; priority only breaks ties of start.
TEST_F(PreemptSelectTest, YoungestFirstWhenAsked) {
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 5, 100, 0, 0, 8));   // Lowest priority, oldest
  c.push_back(Running(2, 50, 300, 1, 0, 8));  // Youngest
  c.push_back(Running(3, 10, 200, 2, 0, 8));
  std::optional<PreemptPlan> plan =
      ChoosePreemptees(model_, usage_, {0, 1, 2}, Cores(8), c, /*youngest_first=*/true);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2}));
  plan = ChoosePreemptees(model_, usage_, {0, 1, 2}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{1}));  // By default: lowest priority
}

TEST_F(PreemptSelectTest, SparesVictimsThePlacementDoesNotNeed) {
  // n1 holds two 4-core jobs of priority 1; n2 one 8-core job of priority 2.
  // An 8-core job: displacing the priority-1 pair is enough.
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 4));
  c.push_back(Running(2, 1, 100, 0, 4, 4));
  c.push_back(Running(3, 2, 100, 1, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {0, 1}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(plan->allocation.nodes[0].node, 0u);
}

TEST_F(PreemptSelectTest, ASmallJobDisplacesOneSmallVictim) {
  // Each node full with two 4-core jobs; a 2-core job needs just one of them.
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 4));
  c.push_back(Running(2, 1, 200, 0, 4, 4));
  c.push_back(Running(3, 1, 150, 1, 0, 4));
  c.push_back(Running(4, 1, 120, 1, 4, 4));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {0, 1}, Cores(2), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2}));
}

TEST_F(PreemptSelectTest, CheapVictimsThatDoNotHelpAreSparedAgain) {
  // n1: a cheap 2-core victim beside 6 cores of a job that may not be
  // displaced; n2: one dearer 8-core victim. The cheap one is tried first but
  // only n2 can hold an 8-core job, so the cheap one is spared again.
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 2));
  Running(99, 0, 100, 0, 2, 6);  // Not preemptable: not passed in
  c.push_back(Running(2, 3, 100, 1, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {0, 1}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2}));
  EXPECT_EQ(plan->allocation.nodes[0].node, 1u);
}

TEST_F(PreemptSelectTest, CheapVictimsTogetherBeforeADearerOne) {
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 2));
  c.push_back(Running(2, 2, 100, 0, 2, 6));
  c.push_back(Running(3, 3, 100, 1, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {0, 1}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{1, 2}));
}

TEST_F(PreemptSelectTest, MultiNodeJobTakesVictimsOnEnoughNodes) {
  std::vector<PreemptCandidate> c;
  for (uint32_t n = 0; n < 4; ++n) c.push_back(Running(1 + n, 1 + n, 100, n, 0, 8));
  std::optional<PreemptPlan> plan =
      ChoosePreemptees(model_, usage_, AllNodes(model_), Cores(8, 2), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(plan->allocation.nodes.size(), 2u);
}

TEST_F(PreemptSelectTest, NotEnoughEvenWithEveryVictim) {
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 8));
  EXPECT_FALSE(ChoosePreemptees(model_, usage_, {0}, Cores(8, 2), c));
  EXPECT_FALSE(ChoosePreemptees(model_, usage_, {0}, Cores(8), {}));
}

TEST_F(PreemptSelectTest, VictimsOffTheCandidateNodesAreIgnored) {
  std::vector<PreemptCandidate> c;
  c.push_back(Running(1, 1, 100, 0, 0, 8));
  c.push_back(Running(2, 9, 100, 1, 0, 8));
  std::optional<PreemptPlan> plan = ChoosePreemptees(model_, usage_, {1}, Cores(8), c);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->victims, (std::vector<uint32_t>{2}));
}

}  // namespace
}  // namespace rota::sched
