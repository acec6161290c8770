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

}  // namespace
}  // namespace rota::cli
