#include "sched/gang_rows.h"

#include <gtest/gtest.h>

#include "conf/preempt_mode.h"

namespace rota::sched::gang {
namespace {

// Cores `slots` of node `node` (and GPUs `gpus`).
sched::Allocation On(uint32_t node, std::vector<uint32_t> slots, sched::GpuMask gpus = 0) {
  sched::Allocation a;
  sched::NodeAllocation n;
  n.node = node;
  n.slots = std::move(slots);
  n.gpus = gpus;
  a.nodes.push_back(n);
  return a;
}

TEST(GangRowsTest, ForceShareCount) {
  EXPECT_EQ(conf::ForceShareCount("FORCE:2"), 2u);
  EXPECT_EQ(conf::ForceShareCount("force:3"), 3u);
  EXPECT_EQ(conf::ForceShareCount("FORCE"), 4u);
  EXPECT_EQ(conf::ForceShareCount("YES:2"), 0u);
  EXPECT_EQ(conf::ForceShareCount("NO"), 0u);
  EXPECT_EQ(conf::ForceShareCount("EXCLUSIVE"), 0u);
}

TEST(GangRowsTest, OverlapIsACommonCoreOrGpuOnOneNode) {
  EXPECT_TRUE(Overlap(On(0, {0, 1}), On(0, {1, 2})));
  EXPECT_FALSE(Overlap(On(0, {0, 1}), On(0, {2, 3})));
  EXPECT_FALSE(Overlap(On(0, {0, 1}), On(1, {0, 1})));
  EXPECT_TRUE(Overlap(On(0, {0}, 0b01), On(0, {1}, 0b11)));
  sched::Allocation whole = On(0, {3});
  whole.nodes[0].exclusive = true;
  EXPECT_TRUE(Overlap(whole, On(0, {0})));
}

TEST(GangRowsTest, TheSlicesRowRunsAndOthersFillWhatItLeaves) {
  // Row 0: job 1 on cores 0-1. Row 1: job 2 on cores 0-1 (clashes with 1)
  // and job 3 on cores 2-3 (clashes with nothing in row 0).
  std::vector<Member> m = {{1, 0, On(0, {0, 1})}, {2, 1, On(0, {0, 1})}, {3, 1, On(0, {2, 3})}};
  EXPECT_EQ(RunningSet(m, 0, 2), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(RunningSet(m, 1, 2), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(NextRow(m, 0, 2), 1u);
  EXPECT_EQ(NextRow(m, 1, 2), 0u);
  // Mid-slice, those running keep running even where the slice's row would
  // take over: job 1 waits for a switch.
  EXPECT_EQ(RunningSet(m, 0, 2, {2}), (std::vector<uint32_t>{2, 3}));
}

TEST(GangRowsTest, RowsTakeTurnsRoundRobinSkippingEmptyOnes) {
  std::vector<Member> m = {{1, 0, On(0, {0})}, {2, 2, On(0, {0})}, {3, 3, On(0, {0})}};
  EXPECT_EQ(NextRow(m, 0, 4), 2u);  // Row 1 has nobody
  EXPECT_EQ(NextRow(m, 2, 4), 3u);
  EXPECT_EQ(NextRow(m, 3, 4), 0u);
  EXPECT_EQ(RunningSet(m, 2, 4), (std::vector<uint32_t>{2}));
  // A job alone keeps its turn.
  std::vector<Member> alone = {{5, 1, On(0, {0})}};
  EXPECT_EQ(NextRow(alone, 1, 2), 1u);
  EXPECT_EQ(RunningSet(alone, 0, 2), (std::vector<uint32_t>{5}));
}

}  // namespace
}  // namespace rota::sched::gang
