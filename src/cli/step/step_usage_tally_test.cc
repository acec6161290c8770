#include "cli/step/step_usage_tally.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(StepUsageTallyTest, HighestTaskAndMeanOfMeasured) {
  StepUsageTally tally;
  tally.Add(0, "n1", 1000);
  tally.Add(1, "n1", 51200);
  tally.Add(2, "n2", 3000);
  tally.Add(3, "n2", 0);  // Not measured: left out of the mean
  wire::StepUsage u = tally.Summary();
  EXPECT_EQ(u.max_rss_kb(), 51200u);
  EXPECT_EQ(u.max_rss_node(), "n1");
  EXPECT_EQ(u.max_rss_task(), 1u);
  EXPECT_EQ(u.ave_rss_kb(), 18400u);
  EXPECT_EQ(u.tasks(), 3u);
}

TEST(StepUsageTallyTest, TiesGoToTheLowestTask) {
  StepUsageTally tally;
  tally.Add(5, "n2", 700);
  tally.Add(2, "n1", 700);
  tally.Add(9, "n3", 700);
  EXPECT_EQ(tally.Summary().max_rss_task(), 2u);
  EXPECT_EQ(tally.Summary().max_rss_node(), "n1");
}

TEST(StepUsageTallyTest, NothingMeasuredGivesAnEmptyRecord) {
  StepUsageTally tally;
  tally.Add(0, "n1", 0);
  EXPECT_EQ(tally.Summary().tasks(), 0u);
  EXPECT_EQ(tally.Summary().max_rss_kb(), 0u);
}

TEST(StepUsageTallyTest, CpuTimeIsSummedOverTasks) {
  StepUsageTally tally;
  tally.AddCpu(1500000, 20000);
  tally.AddCpu(500000, 10000);
  wire::StepUsage u = tally.Summary();
  EXPECT_EQ(u.user_cpu_us(), 2000000u);
  EXPECT_EQ(u.system_cpu_us(), 30000u);
  EXPECT_EQ(u.tasks(), 0u) << "no memory measured";
}

TEST(StepUsageTallyTest, GpuFiguresOfNodesAddUp) {
  StepUsageTally tally;
  EXPECT_FALSE(tally.Summary().has_gpu());
  wire::GpuUsage a;
  a.set_gpus(2);
  a.set_samples(4);
  a.set_util_ave(150);
  a.set_util_max(200);
  a.set_mem_max_bytes(10);
  a.set_energy_j(1000);
  a.set_node("n1");
  tally.AddGpu(a);
  EXPECT_EQ(tally.Summary().gpu().node(), "n1");
  wire::GpuUsage b = a;
  b.set_gpus(1);
  b.set_samples(5);
  b.set_util_ave(50);
  b.set_util_max(90);
  b.set_node("n2");
  tally.AddGpu(b);
  tally.AddGpu(wire::GpuUsage());  // A node that took no samples adds nothing
  wire::GpuUsage sum = tally.Summary().gpu();
  EXPECT_EQ(sum.gpus(), 3u);
  EXPECT_EQ(sum.samples(), 5u);
  EXPECT_DOUBLE_EQ(sum.util_ave(), 200);
  EXPECT_EQ(sum.util_max(), 290u);
  EXPECT_EQ(sum.mem_max_bytes(), 20u);
  EXPECT_DOUBLE_EQ(sum.energy_j(), 2000);
  EXPECT_EQ(sum.node(), "") << "several nodes";
}

}  // namespace
}  // namespace rota::cli
