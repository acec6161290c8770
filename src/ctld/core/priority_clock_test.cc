#include "ctld/core/priority_clock.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr int64_t kT0 = 1'800'000'000;

std::shared_ptr<const conf::ClusterConfig> Config(TempDir& dir, const std::string& nodes) {
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\n"
                                      "PriorityType=priority/multifactor\nPriorityCalcPeriod=5\n" +
                                      nodes + "PartitionName=batch Nodes=ALL Default=YES\n"});
  EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
  return loaded.config.ok() ? *loaded.config : nullptr;
}

TEST(PriorityClockTest, DueEveryPriorityCalcPeriodAndAcrossClockSteps) {
  TempDir dir;
  auto config = Config(dir, "NodeName=n1 CPUs=4\n");
  ASSERT_NE(config, nullptr);
  PriorityClock clock;
  int64_t next = 0;
  EXPECT_TRUE(clock.Due(*config, kT0, &next));  // Never ran: due
  EXPECT_EQ(clock.Ran(*config, kT0), kT0 + 300);
  EXPECT_FALSE(clock.Due(*config, kT0 + 299, &next));
  EXPECT_EQ(next, kT0 + 300);
  EXPECT_TRUE(clock.Due(*config, kT0 + 300, &next));
  // An hour back: still due 300 s after the last run, on the new clock.
  clock.ClockStepped(-3600);
  EXPECT_EQ(clock.last(), kT0 - 3600);
  EXPECT_TRUE(clock.Due(*config, kT0 - 3300, &next));
}

TEST(PriorityClockTest, TotalsFollowTheConfigurationAndAreMadeOnce) {
  TempDir dir;
  auto small = Config(dir, "NodeName=n1 CPUs=4\n");
  ASSERT_NE(small, nullptr);
  PriorityClock clock;
  const sched::PriorityCluster* first = &clock.Totals(small, nullptr);
  EXPECT_EQ(first->total_cpus, 4u);
  EXPECT_EQ(&clock.Totals(small, nullptr), first);
  TempDir other;
  auto big = Config(other, "NodeName=n[1-2] CPUs=8\n");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(clock.Totals(big, nullptr).total_cpus, 16u);
  EXPECT_EQ(clock.Totals(big, nullptr).total_nodes, 2u);
}

}  // namespace
}  // namespace rota::ctld
