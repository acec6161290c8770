#include "model/start_forecast.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(StartForecast, NoRangeUntilEnoughJobsWereMeasured) {
  StartForecastCalibration c;
  for (uint32_t i = 0; i + 1 < StartForecastCalibration::kMinSamples; ++i) c.Started(0, 540, 540);
  EXPECT_FALSE(ForecastRange(1600, 1000, c.Ratios()));
  c.Started(0, 540, 540);
  ASSERT_TRUE(ForecastRange(1600, 1000, c.Ratios()));
  EXPECT_FALSE(ForecastRange(0, 1000, c.Ratios()));  // No plan
}

TEST(StartForecast, RangeScalesThePlanByWherePastPlansLanded) {
  StartForecastCalibration c;
  // Plans of 540 s: half the jobs waited 1.5x as long (with the minute of
  // slack, 600 -> 900), one in ten three times (600 -> 1800), the rest as planned.
  for (int i = 0; i < 40; ++i) c.Started(100, 640, 100 + 540);
  for (int i = 0; i < 40; ++i) c.Started(100, 640, 100 + 840);
  for (int i = 0; i < 20; ++i) c.Started(100, 640, 100 + 1740);
  wire::StartForecastRatios r = c.Ratios();
  EXPECT_EQ(r.samples(), 100u);
  EXPECT_DOUBLE_EQ(r.p50(), 1.5);
  EXPECT_DOUBLE_EQ(r.p90(), 3.0);
  // A plan 1,140 s ahead: (1140 + 60) x 1.5 - 60 and x 3 - 60.
  std::optional<StartRange> range = ForecastRange(11140, 10000, r);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->p50, 10000 + 1740);
  EXPECT_EQ(range->p90, 10000 + 3540);
}

TEST(StartForecast, EarlyStartsNeverPutTheRangeBeforeNow) {
  StartForecastCalibration c;
  for (int i = 0; i < 30; ++i) c.Started(0, 3600, 0);  // All started at once
  // A plan for now: the minute of slack scaled down is still now.
  std::optional<StartRange> range = ForecastRange(1000, 1000, c.Ratios());
  ASSERT_TRUE(range);
  EXPECT_EQ(range->p50, 1000);
  EXPECT_EQ(range->p90, 1000);
}

TEST(StartForecast, KeepsOnlyTheLatestJobs) {
  StartForecastCalibration c;
  for (size_t i = 0; i < StartForecastCalibration::kWindow; ++i) c.Started(0, 0, 540);  // 10x
  EXPECT_DOUBLE_EQ(c.Ratios().p90(), 10.0);
  for (size_t i = 0; i < StartForecastCalibration::kWindow; ++i) c.Started(0, 540, 540);
  wire::StartForecastRatios r = c.Ratios();
  EXPECT_EQ(r.samples(), StartForecastCalibration::kWindow);
  EXPECT_DOUBLE_EQ(r.p50(), 1.0);
  EXPECT_DOUBLE_EQ(r.p90(), 1.0);
}

}  // namespace
}  // namespace rota::model
