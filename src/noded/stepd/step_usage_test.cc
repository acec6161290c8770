#include "noded/stepd/step_usage.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(BatchStepUsageTest, CagePeakWinsAndRoundsUpToKiB) {
  wire::StepUsage u = BatchStepUsage(uint64_t{52428801}, 40000, "n1");
  EXPECT_EQ(u.max_rss_kb(), 51201u);
  EXPECT_EQ(u.ave_rss_kb(), 51201u);
  EXPECT_EQ(u.max_rss_node(), "n1");
  EXPECT_EQ(u.max_rss_task(), 0u);
  EXPECT_EQ(u.tasks(), 1u);
}

TEST(BatchStepUsageTest, WithoutACagePeakTheScriptsOwnPeak) {
  EXPECT_EQ(BatchStepUsage(std::nullopt, 40000, "n1").max_rss_kb(), 40000u);
  EXPECT_EQ(BatchStepUsage(uint64_t{0}, 40000, "n1").max_rss_kb(), 40000u);
}

TEST(BatchStepUsageTest, NothingKnownGivesAnEmptyRecord) {
  wire::StepUsage u = BatchStepUsage(std::nullopt, 0, "n1");
  EXPECT_EQ(u.tasks(), 0u);
  EXPECT_TRUE(u.max_rss_node().empty());
}

}  // namespace
}  // namespace rota::noded
