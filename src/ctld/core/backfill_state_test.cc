#include "ctld/core/backfill_state.h"

#include <gtest/gtest.h>

#include "ctld/core/preempt_holds.h"

namespace rota::ctld {
namespace {

std::vector<sched::BackfillJob> Jobs(std::initializer_list<uint32_t> ids) {
  std::vector<sched::BackfillJob> jobs;
  for (uint32_t id : ids) jobs.emplace_back().id = id;
  return jobs;
}

// A plan of `jobs` cut by bf_max_time after the job at `last`: the first is
// reserved at `start`, the others started or not tested.
sched::BackfillResult CutPlan(const std::vector<sched::BackfillJob>& jobs, int64_t last,
                              int64_t start) {
  sched::BackfillResult plan;
  for (size_t i = 0; i < jobs.size(); ++i) {
    sched::BackfillDecision& d = plan.decisions.emplace_back();
    d.id = jobs[i].id;
    d.outcome = i == 0                            ? sched::BackfillOutcome::kReserved
                : static_cast<int64_t>(i) <= last ? sched::BackfillOutcome::kStartNow
                                                  : sched::BackfillOutcome::kNotTested;
    d.start = start;
  }
  plan.out_of_time = true;
  plan.last_tested = last;
  return plan;
}

TEST(BackfillStateTest, APassIsDueOnceItsIntervalIsOver) {
  BackfillState state;
  int64_t next = 0;
  EXPECT_TRUE(state.Due(100, 30, &next));  // Never ran
  state.PassBegins(100);
  EXPECT_FALSE(state.Due(129, 30, &next));
  EXPECT_EQ(next, 130);
  EXPECT_TRUE(state.Due(130, 30, &next));
}

TEST(BackfillStateTest, ACutPassIsResumedBelowItsLastJobWithItsReservationsKept) {
  BackfillState state;
  std::vector<sched::BackfillJob> jobs = Jobs({1, 2, 3, 4});
  state.KeepResume(CutPlan(jobs, 1, 500), jobs, /*bf_continue=*/true);

  std::vector<sched::BackfillJob> next = Jobs({1, 2, 3, 4});
  state.MarkCarried(next);
  EXPECT_TRUE(next[0].carried);
  ASSERT_NE(next[0].kept, nullptr);
  EXPECT_EQ(next[0].kept->start, 500);  // Its reservation is booked again, untried
  EXPECT_TRUE(next[1].carried);
  EXPECT_EQ(next[1].kept, nullptr);  // Started then: no reservation to keep
  EXPECT_FALSE(next[2].carried);     // Below the cut: tried this time
  EXPECT_FALSE(next[3].carried);
}

TEST(BackfillStateTest, NothingIsCarriedWhenEveryJobWasOrWithoutBfContinue) {
  BackfillState state;
  std::vector<sched::BackfillJob> jobs = Jobs({1, 2});
  state.KeepResume(CutPlan(jobs, 1, 500), jobs, true);
  std::vector<sched::BackfillJob> same = Jobs({1, 2});
  state.MarkCarried(same);  // Every job carried: all are tried again instead
  EXPECT_FALSE(same[0].carried);
  EXPECT_EQ(same[0].kept, nullptr);

  BackfillState off;
  off.KeepResume(CutPlan(jobs, 0, 500), jobs, /*bf_continue=*/false);
  std::vector<sched::BackfillJob> fresh = Jobs({1, 2, 3});
  off.MarkCarried(fresh);
  EXPECT_FALSE(fresh[0].carried);
}

TEST(BackfillStateTest, AClockStepMovesTheLastPassAndDropsWhatWasPlannedOnTheOldClock) {
  BackfillState state;
  state.PassBegins(1000);
  std::vector<sched::BackfillJob> jobs = Jobs({1, 2, 3});
  state.KeepResume(CutPlan(jobs, 0, 1500), jobs, true);
  state.ClockStepped(-600);
  int64_t next = 0;
  EXPECT_FALSE(state.Due(420, 30, &next));
  EXPECT_EQ(next, 430);  // 1000 - 600 + 30
  std::vector<sched::BackfillJob> after = Jobs({1, 2, 3});
  state.MarkCarried(after);
  EXPECT_FALSE(after[0].carried);
}

TEST(PreemptHoldsTest, NodesHeldForAPreemptorAreLeftOutForEveryOtherJob) {
  sched::ClusterModel model;
  for (const char* name : {"n1", "n2", "n3"}) model.nodes.emplace_back().name = name;
  model.index = {{"n1", 0}, {"n2", 1}, {"n3", 2}};
  PreemptHolds holds;
  std::vector<uint32_t> usable = {0, 1, 2};
  holds.Drop(0, usable);
  EXPECT_EQ(usable.size(), 3u);  // Nothing held

  wire::JobRecord preemptor;
  preemptor.set_job_id(7);
  preemptor.add_preempt_nodes("n2");
  holds.Note(preemptor, model);
  std::vector<uint32_t> for_other = {0, 1, 2};
  holds.Drop(8, for_other);
  EXPECT_EQ(for_other, (std::vector<uint32_t>{0, 2}));
  std::vector<uint32_t> for_itself = {0, 1, 2};
  holds.Drop(7, for_itself);
  EXPECT_EQ(for_itself.size(), 3u);
  std::vector<uint32_t> for_backfill = {0, 1, 2};
  holds.Drop(0, for_backfill);  // 0: every held node
  EXPECT_EQ(for_backfill, (std::vector<uint32_t>{0, 2}));

  holds.Clear();
  std::vector<uint32_t> cleared = {0, 1, 2};
  holds.Drop(8, cleared);
  EXPECT_EQ(cleared.size(), 3u);
}

}  // namespace
}  // namespace rota::ctld
