#include "sched/feature_expr.h"

#include <gtest/gtest.h>

#include <set>

namespace rota::sched {
namespace {

bool Match(const FeatureExpr& e, std::set<std::string> features, size_t choice = 0) {
  return e.Matches([&](const std::string& f) { return features.count(f) > 0; }, choice);
}

TEST(FeatureExprTest, AndOrAndParentheses) {
  FeatureExpr e = *FeatureExpr::Parse("a100&ib");
  EXPECT_TRUE(Match(e, {"a100", "ib"}));
  EXPECT_FALSE(Match(e, {"a100"}));
  FeatureExpr comma = *FeatureExpr::Parse("a100,ib");
  EXPECT_FALSE(Match(comma, {"ib"}));
  FeatureExpr either = *FeatureExpr::Parse("a100|h100");
  EXPECT_TRUE(Match(either, {"h100"}));
  EXPECT_FALSE(Match(either, {"v100"}));
  FeatureExpr grouped = *FeatureExpr::Parse("(a100|h100)&ib");
  EXPECT_TRUE(Match(grouped, {"h100", "ib"}));
  EXPECT_FALSE(Match(grouped, {"h100"}));
  EXPECT_TRUE(Match(*FeatureExpr::Parse(""), {}));
  EXPECT_EQ(grouped.Names(), (std::vector<std::string>{"a100", "h100", "ib"}));
}

TEST(FeatureExprTest, BracketOptionsAreChosenOneAtATime) {
  FeatureExpr e = *FeatureExpr::Parse("[rack1|rack2]&ib");
  ASSERT_EQ(e.bracket_options(), (std::vector<std::string>{"rack1", "rack2"}));
  EXPECT_TRUE(Match(e, {"rack1", "ib"}, 0));
  EXPECT_FALSE(Match(e, {"rack1", "ib"}, 1));
  EXPECT_TRUE(Match(e, {"rack2", "ib"}, 1));
  EXPECT_FALSE(Match(e, {"rack2"}, 1));
}

TEST(FeatureExprTest, CountedTermsDoNotRestrictSingleNodes) {
  FeatureExpr e = *FeatureExpr::Parse("bigmem*2&ib");
  ASSERT_EQ(e.counts().size(), 1u);
  EXPECT_EQ(e.counts()[0].feature, "bigmem");
  EXPECT_EQ(e.counts()[0].nodes, 2u);
  EXPECT_TRUE(Match(e, {"ib"}));
  EXPECT_FALSE(Match(e, {"bigmem"}));
}

TEST(FeatureExprTest, SyntaxErrorsSayWhere) {
  for (const char* bad : {"a&", "(a|b", "[a|b", "a*", "a*0", "a&&b", "|a", "[a]&[b]", "a)"}) {
    Result<FeatureExpr> e = FeatureExpr::Parse(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.status().message().find("Invalid feature specification"), std::string::npos);
    EXPECT_NE(e.status().message().find("position"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace rota::sched
