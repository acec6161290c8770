#include "sched/scheduling_policy.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

TEST(SchedulingPolicyTest, TheSitesPolicyIsItsSchedulerTypeAndParameters) {
  conf::ClusterConfig c;
  c.settings.scheduler_type = "sched/backfill";
  conf::SchedulerParameters& p = c.settings.scheduler;
  p.bf_window = 7200;
  p.bf_resolution = 30;
  p.bf_max_job_test = 40;
  p.bf_max_job_part = 20;
  p.bf_max_job_user = 5;
  p.bf_continue = true;
  p.bf_interval = 45;
  p.bf_min_age_reserve = 600;
  p.bf_min_prio_reserve = 5000;
  p.bf_max_job_start = 7;
  p.sched_max_job_start = 9;
  p.partition_job_depth = 11;
  p.bf_job_part_count_reserve = 3;
  p.bf_max_time = 90;
  p.bf_reserve_in_node_order = true;
  p.rota_predict_runtime = true;
  SchedulingPolicy s = PolicyOf(c);
  EXPECT_TRUE(s.backfill);
  EXPECT_EQ(s.plan.window, 7200);
  EXPECT_EQ(s.resolution_s, 30);
  EXPECT_EQ(s.plan.max_job_test, 40u);
  EXPECT_EQ(s.plan.max_job_part, 20u);
  EXPECT_EQ(s.plan.max_job_user, 5u);
  EXPECT_TRUE(s.carry_on);
  EXPECT_EQ(s.interval_s, 45);
  EXPECT_EQ(s.min_age_reserve_s, 600);
  EXPECT_EQ(s.min_prio_reserve, 5000u);
  EXPECT_EQ(s.plan.max_job_start, 7u);
  EXPECT_EQ(s.main.max_starts, 9u);
  EXPECT_EQ(s.main.partition_depth, 11u);
  EXPECT_EQ(s.plan.reserve_per_part, 3u);
  EXPECT_EQ(s.max_time_s, 90);
  EXPECT_FALSE(s.plan.reserve_busy_nodes);
  EXPECT_TRUE(s.predict_runtime);

  c.settings.scheduler_type = "sched/builtin";
  EXPECT_FALSE(PolicyOf(c).backfill);
}

TEST(SchedulingPolicyTest, TextbookPoliciesPlanEveryEventOverTheWholeQueue) {
  conf::ClusterConfig c;
  c.settings.scheduler_type = "sched/backfill";
  c.settings.scheduler.bf_max_job_test = 40;
  c.settings.scheduler.bf_min_age_reserve = 600;
  c.settings.scheduler.bf_min_prio_reserve = 5000;
  c.settings.scheduler.bf_max_job_start = 7;
  c.settings.scheduler.sched_max_job_start = 9;
  c.settings.scheduler.bf_reserve_in_node_order = true;
  c.settings.scheduler.rota_predict_runtime = true;
  const SchedulingPolicy site = PolicyOf(c);

  const SchedulingPolicy easy = EasyPolicy(site);
  EXPECT_TRUE(easy.backfill);
  EXPECT_EQ(easy.plan.reserve_per_part, 1u);
  EXPECT_EQ(easy.plan.window, kInfiniteDuration);
  EXPECT_EQ(easy.plan.max_job_test, 0u);
  EXPECT_EQ(easy.interval_s, 0);
  EXPECT_EQ(easy.resolution_s, 1);
  EXPECT_EQ(easy.min_age_reserve_s, 0);
  EXPECT_EQ(easy.min_prio_reserve, 0u);
  EXPECT_EQ(easy.plan.max_job_start, 0u);
  EXPECT_EQ(easy.main.max_starts, 0u);
  // The site's other choices stay.
  EXPECT_FALSE(easy.plan.reserve_busy_nodes);
  EXPECT_TRUE(easy.predict_runtime);

  const SchedulingPolicy conservative = ConservativePolicy(site);
  EXPECT_TRUE(conservative.backfill);
  EXPECT_EQ(conservative.plan.reserve_per_part, 0u);  // Every job reserves

  const SchedulingPolicy fcfs = FcfsPolicy(site);
  EXPECT_FALSE(fcfs.backfill);
  // Every misfit holds back the rest of its partition.
  EXPECT_EQ(fcfs.min_age_reserve_s, 0);
  EXPECT_EQ(fcfs.min_prio_reserve, 0u);
  EXPECT_EQ(fcfs.main.max_starts, 0u);
}

// Old enough and of priority enough: both thresholds are inclusive.
TEST(SchedulingPolicyTest, MayReserveTakesBothThresholds) {
  SchedulingPolicy p;
  EXPECT_TRUE(MayReserve(p, 0, 0));  // Slurm's defaults: every job
  p.min_age_reserve_s = 600;
  p.min_prio_reserve = 5000;
  EXPECT_TRUE(MayReserve(p, 600, 5000));
  EXPECT_FALSE(MayReserve(p, 599, 5000));
  EXPECT_FALSE(MayReserve(p, 600, 4999));
}

}  // namespace
}  // namespace rota::sched
