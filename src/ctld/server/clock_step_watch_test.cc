#include "ctld/server/clock_step_watch.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::chrono::steady_clock::time_point kBoot{seconds(5000)};

TEST(ClockStepWatchTest, OrdinaryAdvanceIsNoStep) {
  ClockStepWatch watch;
  EXPECT_EQ(watch.Sample(1'000'000, kBoot), 0);
  // Whole seconds read just before and just after a second turns.
  EXPECT_EQ(watch.Sample(1'000'000, kBoot + milliseconds(999)), 0);
  EXPECT_EQ(watch.Sample(1'000'001, kBoot + milliseconds(1001)), 0);
  EXPECT_EQ(watch.Sample(1'000'600, kBoot + seconds(600)), 0);
  // NTP's slew: 0.5 ms a second over an hour without a sample in between.
  EXPECT_EQ(watch.Sample(1'004'202, kBoot + seconds(4200)), 0);
}

TEST(ClockStepWatchTest, StepsForwardAndBackAreMeasured) {
  ClockStepWatch watch;
  ASSERT_EQ(watch.Sample(1'000'000, kBoot), 0);
  EXPECT_EQ(watch.Sample(1'007'201, kBoot + seconds(1)), 7200);
  EXPECT_EQ(watch.Sample(1'007'202, kBoot + seconds(2)), 0);
  EXPECT_EQ(watch.Sample(1'000'003, kBoot + seconds(3)), -7200);
  EXPECT_EQ(watch.Sample(996'404, kBoot + seconds(4)), -3600);
  // Below the threshold: no step.
  EXPECT_EQ(watch.Sample(996'407, kBoot + seconds(5)), 0);
}

}  // namespace
}  // namespace rota::ctld
