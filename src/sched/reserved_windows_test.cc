#include "sched/reserved_windows.h"

#include <gtest/gtest.h>

#include <string>

#include "sched/backfill.h"
#include "sched/test_cluster.h"

namespace rota::sched {
namespace {

using testing::AddNode;
using testing::AllNodes;
using testing::MakeNode;

constexpr int64_t kNow = 1'000'000;

// Four idle nodes of 4 cores; n2 and n3 are reserved over [kNow + 100, kNow + 200).
class ReservedWindowsTest : public ::testing::Test {
 protected:
  ReservedWindowsTest() {
    for (int i = 0; i < 4; ++i) {
      AddNode(model_, MakeNode("n" + std::to_string(i), 1, 4, 1000, {}, model_.gpu_types));
    }
    model_.empty_usage = model_.EmptyUsage();
    all_ = AllNodes(model_);
    windows_.push_back({kNow + 100, kNow + 200, {2, 3}, false});
  }

  BackfillJob Job(uint32_t id, uint32_t nodes, int64_t limit) {
    BackfillJob j;
    j.id = id;
    j.request.nodes = nodes;
    j.request.tasks = 4 * nodes;
    j.request.tasks_per_node = 4;
    j.candidates = &all_;
    j.user = 1;
    j.time_limit_s = limit;
    return j;
  }

  BackfillResult Plan(const std::vector<BackfillJob>& jobs) {
    profile_ = std::make_unique<AvailabilityProfile>(model_, model_.EmptyUsage(), kNow);
    BlockReserved(windows_, *profile_);
    return PlanBackfill(model_, *profile_, jobs, BackfillParams{});
  }

  std::string Names(const Allocation& a) const {
    std::string out;
    for (const NodeAllocation& n : a.nodes)
      out += (out.empty() ? "" : ",") + model_.nodes[n.node].name;
    return out;
  }

  ClusterModel model_;
  std::vector<uint32_t> all_;
  std::vector<ReservedWindow> windows_;
  std::unique_ptr<AvailabilityProfile> profile_;
};

TEST_F(ReservedWindowsTest, DropsOnlyWindowsTheRunOverlaps) {
  std::vector<uint32_t> usable = all_;
  // Ends before the window opens: every node.
  EXPECT_FALSE(DropReserved(windows_, kNow, kNow + 100, usable).any);
  EXPECT_EQ(usable.size(), 4u);
  // Reaches into the window: n2 and n3 are left out.
  ReservedDrop drop = DropReserved(windows_, kNow, kNow + 101, usable);
  EXPECT_TRUE(drop.any);
  EXPECT_FALSE(drop.maint);
  EXPECT_EQ(usable, (std::vector<uint32_t>{0, 1}));
  // No time limit: overlaps every later window.
  usable = all_;
  windows_[0].maint = true;
  EXPECT_TRUE(DropReserved(windows_, kNow, kForever, usable).maint);
  EXPECT_EQ(usable, (std::vector<uint32_t>{0, 1}));
  // Starts once the window has closed.
  usable = all_;
  EXPECT_FALSE(DropReserved(windows_, kNow + 200, kNow + 300, usable).any);
}

TEST_F(ReservedWindowsTest, BackfillKeepsJobsOutOfTheWindow) {
  // Three whole nodes for 150 s would overlap the window on n2 or n3: it
  // waits until the window closes. A two-node job ending before it starts now.
  BackfillResult r = Plan({Job(1, 3, 150), Job(2, 2, 50)});
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_EQ(r.decisions[0].outcome, BackfillOutcome::kReserved);
  EXPECT_EQ(r.decisions[0].start, kNow + 200);
  EXPECT_EQ(r.decisions[1].outcome, BackfillOutcome::kStartNow);
}

TEST_F(ReservedWindowsTest, BackfillUsesFreeNodesOrWaitsForTheWindowEnd) {
  // A long two-node job fits on n0 and n1 now; a second one must wait for
  // the window to close, and must not start on n2/n3 before it.
  BackfillResult r = Plan({Job(1, 2, 1000), Job(2, 2, 1000)});
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_EQ(r.decisions[0].outcome, BackfillOutcome::kStartNow);
  EXPECT_EQ(Names(r.decisions[0].allocation), "n0,n1");
  EXPECT_EQ(r.decisions[1].outcome, BackfillOutcome::kReserved);
  EXPECT_EQ(r.decisions[1].start, kNow + 200);
  EXPECT_EQ(Names(r.decisions[1].allocation), "n2,n3");
  // A job without a time limit never takes a reserved node.
  r = Plan({Job(3, 3, -1)});
  EXPECT_NE(r.decisions[0].outcome, BackfillOutcome::kStartNow);
}

TEST_F(ReservedWindowsTest, AWindowInThePastBlocksNothing) {
  windows_[0] = {kNow - 100, kNow, {2, 3}, false};
  BackfillResult r = Plan({Job(1, 4, 1000)});
  EXPECT_EQ(r.decisions[0].outcome, BackfillOutcome::kStartNow);
}

}  // namespace
}  // namespace rota::sched
