#include "sim/policy.h"

#include <gtest/gtest.h>

namespace rota::sim {
namespace {

TEST(PolicyTest, NamesParse) {
  EXPECT_EQ(*ParsePolicy("fcfs"), Policy::kFcfs);
  EXPECT_EQ(*ParsePolicy("easy"), Policy::kEasy);
  EXPECT_EQ(*ParsePolicy("conservative"), Policy::kConservative);
  EXPECT_EQ(*ParsePolicy("slurm"), Policy::kSlurm);
  EXPECT_NE(ParsePolicy("sjf").status().message().find("unknown --policy"), std::string::npos);
}

TEST(PolicyTest, PoliciesSetTheScheduler) {
  conf::ClusterConfig c;
  c.settings.scheduler.bf_window = 3600;
  c.settings.scheduler.bf_max_job_test = 50;
  ApplyPolicy(Policy::kFcfs, c);
  EXPECT_EQ(c.settings.scheduler_type, "sched/builtin");
  ApplyPolicy(Policy::kSlurm, c);
  EXPECT_EQ(c.settings.scheduler_type, "sched/backfill");
  EXPECT_EQ(c.settings.scheduler.bf_window, 3600);  // The file's own
  EXPECT_EQ(c.settings.scheduler.bf_max_job_test, 50u);
  ApplyPolicy(Policy::kEasy, c);
  EXPECT_EQ(c.settings.scheduler.bf_job_part_count_reserve, 1u);
  EXPECT_EQ(c.settings.scheduler.bf_max_job_test, 0u);
  EXPECT_EQ(c.settings.scheduler.bf_interval, 0);
  ApplyPolicy(Policy::kConservative, c);
  EXPECT_EQ(c.settings.scheduler.bf_job_part_count_reserve, 0u);
}

}  // namespace
}  // namespace rota::sim
