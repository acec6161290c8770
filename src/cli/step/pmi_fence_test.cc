#include "cli/step/pmi_fence.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(PmiFenceAggregatorTest, MergesOnceEveryNodeCame) {
  PmiFenceAggregator fences(2);
  Result<std::optional<PmiPairs>> first = fences.Add("n2", 0, {{"b", "2"}, {"shared", "n2"}});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->has_value());
  Result<std::optional<PmiPairs>> second = fences.Add("n1", 0, {{"a", "1"}, {"shared", "n1"}});
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->has_value());
  // By key; a key from two nodes keeps the value of the node first by name.
  EXPECT_EQ(**second, (PmiPairs{{"a", "1"}, {"b", "2"}, {"shared", "n1"}}));
  EXPECT_EQ(fences.round(), 1u);
}

TEST(PmiFenceAggregatorTest, RoundsFollowEachOther) {
  PmiFenceAggregator fences(2);
  ASSERT_TRUE(fences.Add("n1", 0, {}).ok());
  EXPECT_FALSE(fences.Add("n1", 0, {}).ok());  // Twice in one round
  EXPECT_FALSE(fences.Add("n2", 1, {}).ok());  // Round 1 before round 0 ended
  Result<std::optional<PmiPairs>> done = fences.Add("n2", 0, {});
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(done->has_value());
  EXPECT_TRUE((*done)->empty());
  // Round 1: an empty fence of one node alone does not end it.
  Result<std::optional<PmiPairs>> next = fences.Add("n2", 1, {{"x", "y"}});
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());
}

TEST(PmiFenceAggregatorTest, OneNodeStep) {
  PmiFenceAggregator fences(1);
  Result<std::optional<PmiPairs>> done = fences.Add("n1", 0, {{"k", "v"}});
  ASSERT_TRUE(done.ok() && done->has_value());
  EXPECT_EQ(**done, (PmiPairs{{"k", "v"}}));
}

}  // namespace
}  // namespace rota::cli
