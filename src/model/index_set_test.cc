#include "model/index_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace rota::model {
namespace {

TEST(IndexSetTest, ParsesSlurmArrayForms) {
  EXPECT_EQ(IndexSet::Parse("1-1000")->size(), 1000u);
  EXPECT_EQ(IndexSet::Parse("0-15:4")->ToString(), "0,4,8,12");
  EXPECT_EQ(IndexSet::Parse("7,1-3,2,5-6")->ToString(), "1-3,5-7");
  for (const char* bad : {"", "a", "3-1", "1-", "1-4:0", ",", "1,,2", "-1"}) {
    EXPECT_FALSE(IndexSet::Parse(bad).ok()) << bad;
  }
}

TEST(IndexSetTest, ArraySpecWithLimit) {
  Result<ArraySpec> spec = ParseArraySpec("1-1000%50");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->tasks.size(), 1000u);
  EXPECT_EQ(spec->max_running, 50u);
  EXPECT_FALSE(ParseArraySpec("1-10%x").ok());
  EXPECT_EQ(ParseArraySpec("3").value().max_running, 0u);
}

TEST(IndexSetTest, PopEraseInsertAgreeWithStdSet) {
  std::mt19937 rng(3);
  IndexSet set;
  std::set<uint32_t> model;
  for (int i = 0; i < 5000; ++i) {
    uint32_t v = rng() % 200;
    switch (rng() % 3) {
      case 0:
        set.Insert(v);
        model.insert(v);
        break;
      case 1:
        EXPECT_EQ(set.Erase(v), model.erase(v) == 1);
        break;
      default: {
        std::optional<uint32_t> got = set.PopFirst();
        if (model.empty()) {
          EXPECT_FALSE(got.has_value());
        } else {
          EXPECT_EQ(got, *model.begin());
          model.erase(model.begin());
        }
      }
    }
    ASSERT_EQ(set.size(), model.size());
    ASSERT_EQ(set.Contains(v), model.count(v) == 1);
  }
  std::string text = set.ToString();
  if (!text.empty()) {
    EXPECT_EQ(IndexSet::Parse(text).value(), set);
  }
}

}  // namespace
}  // namespace rota::model
