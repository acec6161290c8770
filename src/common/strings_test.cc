#include "common/strings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace rota {
namespace {

using ::testing::ElementsAre;

TEST(StringsTest, CaseInsensitiveComparison) {
  EXPECT_TRUE(EqualsIgnoreCase("PartitionName", "partitionname"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("gpu", "gpus"));
  EXPECT_FALSE(EqualsIgnoreCase("gpu", "cpu"));
  EXPECT_TRUE(StartsWithIgnoreCase("NodeName=a", "nodename="));
  EXPECT_TRUE(StartsWithIgnoreCase("abc", ""));
  EXPECT_FALSE(StartsWithIgnoreCase("No", "NodeName"));
  EXPECT_FALSE(StartsWithIgnoreCase("xNodeName", "NodeName"));
}

TEST(StringsTest, SplitCommaListDropsEmptyPieces) {
  EXPECT_EQ(SplitCommaList("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(SplitCommaList("").empty());
}

TEST(StringsTest, CaseConversionIsAsciiOnly) {
  EXPECT_EQ(ToLower("GrEs/GPU:A100"), "gres/gpu:a100");
  EXPECT_EQ(ToUpper("unlimited-1_x"), "UNLIMITED-1_X");
  // Bytes outside ASCII pass through untouched.
  EXPECT_EQ(ToLower("\xC3\x89T\xC3\x89"), "\xC3\x89t\xC3\x89");
}

TEST(StringsTest, TrimRemovesOuterWhitespaceOnly) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(StringsTest, SplitKeepsEmptyPieces) {
  EXPECT_THAT(Split("a,,b", ','), ElementsAre("a", "", "b"));
  EXPECT_THAT(Split("", ','), ElementsAre(""));
  EXPECT_THAT(Split(",", ','), ElementsAre("", ""));
  EXPECT_THAT(Split("a:b:c", ':'), ElementsAre("a", "b", "c"));
}

TEST(StringsTest, SplitOutsideKeepsTheGivenPairsTogether) {
  EXPECT_THAT(SplitOutside("gpu:a100:2(S:0,1),gpu:t4:1(IDX:0,2)", ',', '(', ')'),
              ElementsAre("gpu:a100:2(S:0,1)", "gpu:t4:1(IDX:0,2)"));
  EXPECT_THAT(SplitOutside("a((1,2),3),b", ',', '(', ')'), ElementsAre("a((1,2),3)", "b"));
  EXPECT_THAT(SplitOutside("a),b", ',', '(', ')'), ElementsAre("a)", "b"));
}

TEST(StringsTest, SplitOutsideBracketsIgnoresSeparatorsInBrackets) {
  EXPECT_THAT(SplitOutsideBrackets("a[1,2],b", ','), ElementsAre("a[1,2]", "b"));
  EXPECT_THAT(SplitOutsideBrackets("r[1-2]-n[01,03],c7", ','),
              ElementsAre("r[1-2]-n[01,03]", "c7"));
  EXPECT_THAT(SplitOutsideBrackets("a,,b", ','), ElementsAre("a", "", "b"));
  // A stray ']' does not stop later separators from splitting.
  EXPECT_THAT(SplitOutsideBrackets("a],b", ','), ElementsAre("a]", "b"));
}

TEST(StringsTest, Join) {
  EXPECT_EQ(Join({"a", "b", "c"}, ","), "a,b,c");
  EXPECT_EQ(Join({"a"}, ", "), "a");
  EXPECT_EQ(Join({}, ","), "");
}

TEST(StringsTest, ParseUint) {
  EXPECT_EQ(ParseUint("0"), 0u);
  EXPECT_EQ(ParseUint("007"), 7u);
  EXPECT_EQ(ParseUint("18446744073709551615"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ParseUint("18446744073709551616"), std::nullopt);
  EXPECT_EQ(ParseUint("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseUint(""), std::nullopt);
  EXPECT_EQ(ParseUint("-1"), std::nullopt);
  EXPECT_EQ(ParseUint("+1"), std::nullopt);
  EXPECT_EQ(ParseUint("12a"), std::nullopt);
  EXPECT_EQ(ParseUint(" 1"), std::nullopt);
}

TEST(StringsTest, ParseInt) {
  EXPECT_EQ(ParseInt("42"), 42);
  EXPECT_EQ(ParseInt("-42"), -42);
  EXPECT_EQ(ParseInt("+42"), 42);
  EXPECT_EQ(ParseInt("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseInt("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseInt("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseInt("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(ParseInt("-"), std::nullopt);
  EXPECT_EQ(ParseInt(""), std::nullopt);
  EXPECT_EQ(ParseInt("--1"), std::nullopt);
  EXPECT_EQ(ParseInt("1.0"), std::nullopt);
}

TEST(StringsTest, ParseDouble) {
  EXPECT_EQ(ParseDouble("0.1"), 0.1);
  EXPECT_EQ(ParseDouble("32"), 32.0);
  EXPECT_EQ(ParseDouble("1e3"), 1000.0);
  EXPECT_EQ(ParseDouble("-2.5"), -2.5);
  EXPECT_EQ(ParseDouble(""), std::nullopt);
  EXPECT_EQ(ParseDouble("0.1G"), std::nullopt);
  EXPECT_EQ(ParseDouble("abc"), std::nullopt);
  EXPECT_EQ(ParseDouble(" 1"), std::nullopt);
  EXPECT_EQ(ParseDouble("inf"), std::nullopt);
  EXPECT_EQ(ParseDouble("nan"), std::nullopt);
}

TEST(StringsTest, ParseBool) {
  for (const char* yes : {"YES", "yes", "True", "1", "on", "ON"}) {
    EXPECT_EQ(ParseBool(yes), true) << yes;
  }
  for (const char* no : {"NO", "no", "FALSE", "0", "off", "Off"}) {
    EXPECT_EQ(ParseBool(no), false) << no;
  }
  EXPECT_EQ(ParseBool(""), std::nullopt);
  EXPECT_EQ(ParseBool("2"), std::nullopt);
  EXPECT_EQ(ParseBool("yess"), std::nullopt);
}

TEST(StringsTest, NaturalCompareOrdersDigitRunsByValue) {
  EXPECT_LT(NaturalCompare("n2", "n10"), 0);
  EXPECT_GT(NaturalCompare("n10", "n2"), 0);
  EXPECT_EQ(NaturalCompare("n10", "n10"), 0);
  EXPECT_LT(NaturalCompare("n002", "n10"), 0);
  EXPECT_LT(NaturalCompare("rack2-n9", "rack10-n1"), 0);
  EXPECT_LT(NaturalCompare("a", "b"), 0);
  EXPECT_LT(NaturalCompare("a", "a1"), 0);
  EXPECT_LT(NaturalCompare("", "a"), 0);
  EXPECT_EQ(NaturalCompare("", ""), 0);
  // Digit runs longer than any integer type still compare by value.
  EXPECT_LT(NaturalCompare("n99999999999999999999999", "n100000000000000000000000"), 0);
}

TEST(StringsTest, NaturalCompareBreaksValueTiesByLength) {
  EXPECT_LT(NaturalCompare("n8", "n08"), 0);
  EXPECT_GT(NaturalCompare("n008", "n08"), 0);
  // The tie-break applies where the runs are, before later characters.
  EXPECT_LT(NaturalCompare("n8b", "n08a"), 0);
}

TEST(StringsTest, NaturalCompareIsATotalOrder) {
  std::vector<std::string> names = {"n10", "n9", "n09", "a", "n", "n1x", "n1", "b2", "b10", "n010"};
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return NaturalCompare(a, b) < 0; });
  EXPECT_THAT(names, ElementsAre("a", "b2", "b10", "n", "n1", "n1x", "n9", "n09", "n10", "n010"));
  for (const std::string& a : names) {
    for (const std::string& b : names) {
      EXPECT_EQ(NaturalCompare(a, b) == 0, a == b) << a << " vs " << b;
      EXPECT_EQ(NaturalCompare(a, b) < 0, NaturalCompare(b, a) > 0) << a << " vs " << b;
    }
  }
}

}  // namespace
}  // namespace rota
