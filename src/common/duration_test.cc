#include "common/duration.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

DurationSecs Parse(std::string_view text) {
  Result<DurationSecs> secs = ParseDuration(text);
  EXPECT_TRUE(secs.ok()) << secs.status().ToString();
  return secs.value_or(-1);
}

TEST(ParseDurationTest, BareNumberIsMinutes) {
  EXPECT_EQ(Parse("0"), 0);
  EXPECT_EQ(Parse("5"), 300);
  EXPECT_EQ(Parse("90"), 5400);
  EXPECT_EQ(Parse("007"), 420);
}

TEST(ParseDurationTest, ColonForms) {
  EXPECT_EQ(Parse("5:07"), 307);            // MM:SS
  EXPECT_EQ(Parse("90:30"), 5430);          // minutes may exceed 59
  EXPECT_EQ(Parse("1:02:03"), 3723);        // HH:MM:SS
  EXPECT_EQ(Parse("48:00:00"), 2 * 86400);  // hours may exceed 23
}

TEST(ParseDurationTest, DayForms) {
  EXPECT_EQ(Parse("2-0"), 2 * 86400);                                // D-HH
  EXPECT_EQ(Parse("1-12"), 86400 + 12 * 3600);                       // D-HH
  EXPECT_EQ(Parse("1-12:30"), 86400 + 12 * 3600 + 30 * 60);          // D-HH:MM
  EXPECT_EQ(Parse("1-12:30:15"), 86400 + 12 * 3600 + 30 * 60 + 15);  // D-HH:MM:SS
  EXPECT_EQ(Parse("0-00:00:01"), 1);
}

TEST(ParseDurationTest, InfiniteInAnyCase) {
  for (const char* text :
       {"INFINITE", "infinite", "Infinite", "UNLIMITED", "unlimited", "UnLiMiTeD"}) {
    EXPECT_EQ(Parse(text), kInfiniteDuration) << text;
  }
}

TEST(ParseDurationTest, ErrorsQuoteTheInput) {
  for (const char* text : {"one-day", "",   "1:2:3:4", "-5",        "1-",        "-",  ":",
                           "1:",      ":5", "1::2",    "1-2-3",     "1-1:2:3:4", "a",  "1.5",
                           " 5",      "5 ", "+5",      "INFINITEx", "infinity",  "1d", "1-x"}) {
    Result<DurationSecs> secs = ParseDuration(text);
    ASSERT_FALSE(secs.ok()) << text;
    EXPECT_EQ(secs.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(secs.status().message(), "invalid time \"" + std::string(text) + "\"");
  }
}

TEST(ParseTimeOptionTest, TheCommandsFormsBesideParseDurations) {
  EXPECT_EQ(*ParseTimeOption("-1"), kInfiniteDuration);
  EXPECT_EQ(*ParseTimeOption("5-"), 5 * 86400);
  EXPECT_EQ(*ParseTimeOption("0-"), 0);
  EXPECT_EQ(*ParseTimeOption("unlimited"), kInfiniteDuration);
  EXPECT_EQ(*ParseTimeOption("INFINITE"), kInfiniteDuration);
  EXPECT_EQ(*ParseTimeOption("1-12:30"), 86400 + 12 * 3600 + 30 * 60);
  EXPECT_EQ(*ParseTimeOption("90"), 5400);
  // Seconds round up to whole minutes, as Slurm keeps limits.
  EXPECT_EQ(*ParseTimeOption("0:02"), 60);
  EXPECT_EQ(*ParseTimeOption("5:30"), 360);
  EXPECT_EQ(*ParseTimeOption("1:02:03"), 3780);
  EXPECT_EQ(*ParseTimeOption("2:00"), 120);
  EXPECT_EQ(*ParseTimeOption("0"), 0);
  EXPECT_EQ(RoundUpToMinutes(-1), -1);
  EXPECT_EQ(RoundUpToMinutes(kInfiniteDuration), kInfiniteDuration);
  for (const char* text : {"-", "-2", "--", "x-", "5--", "1-x", "", "106751991167301-"}) {
    Result<DurationSecs> secs = ParseTimeOption(text);
    ASSERT_FALSE(secs.ok()) << text;
    EXPECT_EQ(secs.status().message(), "invalid time \"" + std::string(text) + "\"");
  }
  // Configuration values keep ParseDuration's narrower forms.
  EXPECT_FALSE(ParseDuration("-1").ok());
  EXPECT_FALSE(ParseDuration("5-").ok());
}

TEST(ParseDurationTest, OverflowIsAnError) {
  for (const char* text : {"99999999999999999999", "153722867280912931",  // minutes * 60 wraps
                           "106751991167301-0", "1-2562047788015215", "18446744073709551615:0"}) {
    Result<DurationSecs> secs = ParseDuration(text);
    ASSERT_FALSE(secs.ok()) << text;
    EXPECT_EQ(secs.status().message(), "invalid time \"" + std::string(text) + "\"");
  }
  // The largest finite value still parses and stays distinct from INFINITE.
  EXPECT_EQ(Parse("153722867280912930"), 153722867280912930 * 60);
}

TEST(FormatDurationTest, Squeue) {
  EXPECT_EQ(FormatDurationSqueue(0), "0:00");
  EXPECT_EQ(FormatDurationSqueue(11), "0:11");
  EXPECT_EQ(FormatDurationSqueue(307), "5:07");
  EXPECT_EQ(FormatDurationSqueue(3599), "59:59");
  EXPECT_EQ(FormatDurationSqueue(3600), "1:00:00");
  EXPECT_EQ(FormatDurationSqueue(3723), "1:02:03");
  EXPECT_EQ(FormatDurationSqueue(86399), "23:59:59");
  EXPECT_EQ(FormatDurationSqueue(86400), "1-00:00:00");
  EXPECT_EQ(FormatDurationSqueue(172800), "2-00:00:00");
  EXPECT_EQ(FormatDurationSqueue(12 * 86400 + 3 * 3600 + 4 * 60 + 5), "12-03:04:05");
  EXPECT_EQ(FormatDurationSqueue(kInfiniteDuration), "UNLIMITED");
  EXPECT_EQ(FormatDurationSqueue(-1), "INVALID");
}

TEST(FormatDurationTest, Scontrol) {
  EXPECT_EQ(FormatDurationScontrol(0), "00:00:00");
  EXPECT_EQ(FormatDurationScontrol(11), "00:00:11");
  EXPECT_EQ(FormatDurationScontrol(3600), "01:00:00");
  EXPECT_EQ(FormatDurationScontrol(86399), "23:59:59");
  EXPECT_EQ(FormatDurationScontrol(172800), "2-00:00:00");
  EXPECT_EQ(FormatDurationScontrol(86400 + 3723), "1-01:02:03");
  EXPECT_EQ(FormatDurationScontrol(kInfiniteDuration), "UNLIMITED");
  EXPECT_EQ(FormatDurationScontrol(-5), "INVALID");
}

TEST(FormatDurationTest, ParseReadsBothFormatsBack) {
  for (DurationSecs secs : {0, 11, 307, 3600, 3723, 86399, 86400, 172800, 1000000}) {
    EXPECT_EQ(Parse(FormatDurationScontrol(secs)), secs) << secs;
    // squeue's "M:SS" is MM:SS and "H:MM:SS" is HH:MM:SS, so it reads back too.
    EXPECT_EQ(Parse(FormatDurationSqueue(secs)), secs) << secs;
  }
  EXPECT_EQ(Parse(FormatDurationSqueue(kInfiniteDuration)), kInfiniteDuration);
}

}  // namespace
}  // namespace rota
