#include "ctld/core/sched_stats.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

TEST(SchedStatsTest, MainCycleLastMaxMeanAndDepth) {
  SchedStats s(100);
  EXPECT_EQ(s.main().MeanCycle(), 0u);  // No cycle yet: no division by zero.
  s.RecordMainCycle(100, 3, 3);
  s.RecordMainCycle(500, 5, 5);
  s.RecordMainCycle(60, 1, 2);
  EXPECT_EQ(s.main().cycles, 3u);
  EXPECT_EQ(s.main().last_cycle_us, 60u);
  EXPECT_EQ(s.main().max_cycle_us, 500u);
  EXPECT_EQ(s.main().MeanCycle(), 220u);
  EXPECT_EQ(s.main().MeanDepth(), 3u);
  EXPECT_EQ(s.main().last_queue_length, 2u);
}

TEST(SchedStatsTest, BackfillCycleMeans) {
  SchedStats s;
  s.RecordBackfillCycle(1000, 10, 4, 2, 4, 1);
  s.RecordBackfillCycle(1060, 30, 8, 6, 10, 5);
  const BackfillPassStats& b = s.backfill();
  EXPECT_EQ(b.cycles, 2u);
  EXPECT_EQ(b.last_cycle_when, 1060);
  EXPECT_EQ(b.max_cycle_us, 30u);
  EXPECT_EQ(b.MeanCycle(), 20u);
  EXPECT_EQ(b.last_depth, 8u);
  EXPECT_EQ(b.last_depth_try, 6u);
  EXPECT_EQ(b.MeanDepth(), 6u);
  EXPECT_EQ(b.MeanDepthTry(), 4u);
  EXPECT_EQ(b.MeanQueueLength(), 7u);
  EXPECT_EQ(b.MeanTableSize(), 3u);
}

TEST(SchedStatsTest, JobEndsGroupedAsSlurmDoes) {
  SchedStats s;
  s.JobSubmitted();
  s.JobSubmitted();
  s.JobStarted();
  s.JobEnded(wire::JOB_STATE_COMPLETED);
  s.JobEnded(wire::JOB_STATE_CANCELLED);
  s.JobEnded(wire::JOB_STATE_FAILED);
  s.JobEnded(wire::JOB_STATE_TIMEOUT);
  s.JobEnded(wire::JOB_STATE_REQUEUED);  // Not an end of the job.
  EXPECT_EQ(s.jobs_submitted(), 2u);
  EXPECT_EQ(s.jobs_started(), 1u);
  EXPECT_EQ(s.jobs_completed(), 1u);
  EXPECT_EQ(s.jobs_canceled(), 1u);
  EXPECT_EQ(s.jobs_failed(), 2u);
}

TEST(SchedStatsTest, ResetZeroesAllButBackfilledSinceStart) {
  SchedStats s(100);
  s.JobSubmitted();
  s.RecordMainCycle(100, 1, 1);
  s.RecordBackfillCycle(150, 10, 1, 1, 1, 1);
  s.JobBackfilled();
  s.Reset(200);
  EXPECT_EQ(s.since(), 200);
  EXPECT_EQ(s.jobs_submitted(), 0u);
  EXPECT_EQ(s.main().cycles, 0u);
  EXPECT_EQ(s.main().max_cycle_us, 0u);
  EXPECT_EQ(s.backfill().cycles, 0u);
  EXPECT_EQ(s.backfill().last_cycle_when, 0);
  EXPECT_EQ(s.backfill().backfilled_since_reset, 0u);
  EXPECT_EQ(s.backfill().backfilled_jobs, 1u);
}

TEST(SchedStatsTest, InjectedClockTimesPasses) {
  SchedStats s;
  EXPECT_EQ(s.Since(s.Now()), 0u);  // No clock: durations are 0.
  int64_t t = 1000;
  s.SetClock([&t] { return t; });
  int64_t began = s.Now();
  t += 250;
  EXPECT_EQ(s.Since(began), 250u);
  EXPECT_EQ(s.Since(t + 5), 0u);  // Never negative.
}

}  // namespace
}  // namespace rota::ctld
