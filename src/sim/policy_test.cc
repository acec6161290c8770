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

// The replay's policy is handed to the core; the configuration stays as
// loaded (a replay's summary and the core's config() show the site's file).
TEST(PolicyTest, PoliciesChooseThePassesOverTheFilesOtherChoices) {
  conf::ClusterConfig c;
  c.settings.scheduler_type = "sched/builtin";
  c.settings.scheduler.bf_window = 3600;
  c.settings.scheduler.bf_max_job_test = 50;
  c.settings.scheduler.bf_reserve_in_node_order = true;
  EXPECT_FALSE(PolicyFor(Policy::kFcfs, c, false).backfill);
  sched::SchedulingPolicy slurm = PolicyFor(Policy::kSlurm, c, false);
  EXPECT_TRUE(slurm.backfill);
  EXPECT_EQ(slurm.plan.window, 3600);  // The file's own
  EXPECT_EQ(slurm.plan.max_job_test, 50u);
  EXPECT_FALSE(slurm.predict_runtime);
  sched::SchedulingPolicy easy = PolicyFor(Policy::kEasy, c, true);
  EXPECT_TRUE(easy.backfill);
  EXPECT_EQ(easy.plan.reserve_per_part, 1u);
  EXPECT_EQ(easy.plan.max_job_test, 0u);
  EXPECT_EQ(easy.interval_s, 0);
  EXPECT_FALSE(easy.plan.reserve_busy_nodes);  // The file's placement stays
  EXPECT_TRUE(easy.predict_runtime);
  EXPECT_EQ(PolicyFor(Policy::kConservative, c, false).plan.reserve_per_part, 0u);
  EXPECT_EQ(c.settings.scheduler_type, "sched/builtin");  // Untouched
}

}  // namespace
}  // namespace rota::sim
