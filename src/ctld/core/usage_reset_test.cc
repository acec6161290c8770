#include "ctld/core/usage_reset.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

// 2026-05-14 (a Thursday) 15:30:00 UTC.
constexpr int64_t kThursday = 1778772600;
constexpr int64_t kDay = 86400;

TEST(UsageResetTest, NoneAndNowHaveNoCalendar) {
  EXPECT_EQ(LastUsageReset("NONE", kThursday), 0);
  EXPECT_EQ(LastUsageReset("NOW", kThursday), 0);
}

TEST(UsageResetTest, DailyIsTheLastMidnight) {
  EXPECT_EQ(LastUsageReset("DAILY", kThursday), 1778716800);  // 2026-05-14 00:00
  // Midnight itself is a boundary.
  EXPECT_EQ(LastUsageReset("daily", 1778716800), 1778716800);
  EXPECT_EQ(LastUsageReset("DAILY", 1778716800 - 1), 1778716800 - kDay);
}

TEST(UsageResetTest, WeeklyIsTheLastSundayMidnight) {
  EXPECT_EQ(LastUsageReset("WEEKLY", kThursday), 1778371200);  // Sunday 2026-05-10
  EXPECT_EQ(LastUsageReset("WEEKLY", 1778371200), 1778371200);
  EXPECT_EQ(LastUsageReset("WEEKLY", 1778371200 - 1), 1778371200 - 7 * kDay);
}

TEST(UsageResetTest, MonthlyQuarterlyYearlyFollowTheCalendar) {
  EXPECT_EQ(LastUsageReset("MONTHLY", kThursday), 1777593600);    // 2026-05-01
  EXPECT_EQ(LastUsageReset("QUARTERLY", kThursday), 1775001600);  // 2026-04-01
  EXPECT_EQ(LastUsageReset("YEARLY", kThursday), 1767225600);     // 2026-01-01
  // A leap year's February: 2024-02-29 12:00 is in the month of 2024-02-01.
  EXPECT_EQ(LastUsageReset("MONTHLY", 1709208000), 1706745600);
  // The last second of a quarter still belongs to it.
  EXPECT_EQ(LastUsageReset("QUARTERLY", 1775001600 - 1), 1767225600);
}

}  // namespace
}  // namespace rota::ctld
