#include "common/step_io_pattern.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

StepIoFields Fields() {
  StepIoFields f;
  f.job_id = 42;
  f.step_id = 3;
  f.task_id = 7;
  f.node_index = 1;
  f.node = "gpu2";
  f.user = "alice";
  f.job_name = "train";
  return f;
}

TEST(StepIoPatternTest, ExpandsEverySymbol) {
  EXPECT_EQ(ExpandStepIoPattern("out-%t-%n-%N-%j-%J-%s-%u-%x-%A-%%.txt", Fields()),
            "out-7-1-gpu2-42-42.3-3-alice-train-42-%.txt");
}

TEST(StepIoPatternTest, ArrayTaskSymbols) {
  StepIoFields f = Fields();
  EXPECT_EQ(ExpandStepIoPattern("o-%A_%a-%j", f), "o-42_4294967294-42");
  f.array_job_id = 40;
  f.array_task_id = 2;
  EXPECT_EQ(ExpandStepIoPattern("o-%A_%a-%j-%3a", f), "o-40_2-42-002");
  EXPECT_FALSE(StepIoPatternPerTask("o-%A_%a"));
}

TEST(StepIoPatternTest, WidthZeroPadsNumbers) {
  EXPECT_EQ(ExpandStepIoPattern("%3t_%4j_%2n", Fields()), "007_0042_01");
}

TEST(StepIoPatternTest, UnknownAndTrailingSymbolsStayAsWritten) {
  EXPECT_EQ(ExpandStepIoPattern("a%qb%", Fields()), "a%qb%");
  EXPECT_EQ(ExpandStepIoPattern("x%12", Fields()), "x%12");
  EXPECT_EQ(ExpandStepIoPattern("plain", Fields()), "plain");
}

TEST(StepIoPatternTest, PerTaskOnlyWithTaskOrNodeSymbols) {
  EXPECT_TRUE(StepIoPatternPerTask("o-%t"));
  EXPECT_TRUE(StepIoPatternPerTask("o-%2n"));
  EXPECT_TRUE(StepIoPatternPerTask("o-%N"));
  EXPECT_FALSE(StepIoPatternPerTask("o-%j.%s-%u"));
  EXPECT_FALSE(StepIoPatternPerTask("o-%%t"));
  EXPECT_FALSE(StepIoPatternPerTask("none"));
}

}  // namespace
}  // namespace rota
