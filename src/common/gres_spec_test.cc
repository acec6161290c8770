#include "common/gres_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rota {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

GresSpec Parse(std::string_view text) {
  Result<GresSpec> spec = ParseGresSpec(text);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.value_or(GresSpec{"<error>", "", 0});
}

TEST(ParseGresSpecTest, NameAlone) { EXPECT_EQ(Parse("gpu"), (GresSpec{"gpu", "", 1})); }

TEST(ParseGresSpecTest, NameAndCount) {
  EXPECT_EQ(Parse("gpu:2"), (GresSpec{"gpu", "", 2}));
  EXPECT_EQ(Parse("gpu:0"), (GresSpec{"gpu", "", 0}));
}

TEST(ParseGresSpecTest, NameTypeAndCount) {
  EXPECT_EQ(Parse("gpu:a100:2"), (GresSpec{"gpu", "a100", 2}));
  EXPECT_EQ(Parse("gpu:1g.10gb:1"), (GresSpec{"gpu", "1g.10gb", 1}));
  // The type may itself look like a count when a count follows it.
  EXPECT_EQ(Parse("gpu:2g:3"), (GresSpec{"gpu", "2g", 3}));
}

TEST(ParseGresSpecTest, NameAndTypeCountsOne) {
  EXPECT_EQ(Parse("gpu:a100"), (GresSpec{"gpu", "a100", 1}));
  EXPECT_EQ(Parse("gpu:1g.10gb"), (GresSpec{"gpu", "1g.10gb", 1}));
  EXPECT_EQ(Parse("gpu:k80"), (GresSpec{"gpu", "k80", 1}));
  EXPECT_EQ(Parse("gpu:2x"), (GresSpec{"gpu", "2x", 1}));
}

TEST(ParseGresSpecTest, CountMultipliersAre1024Based) {
  EXPECT_EQ(Parse("shard:2k").count, 2048u);
  EXPECT_EQ(Parse("shard:2K").count, 2048u);
  EXPECT_EQ(Parse("mps:3m").count, 3u << 20);
  EXPECT_EQ(Parse("mps:a100:1G"), (GresSpec{"mps", "a100", 1u << 30}));
}

void ExpectInvalid(std::string_view text, std::string_view why) {
  Result<GresSpec> spec = ParseGresSpec(text);
  ASSERT_FALSE(spec.ok()) << text;
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(spec.status().message(),
            "invalid GRES \"" + std::string(text) + "\": " + std::string(why));
}

TEST(ParseGresSpecTest, ErrorsQuoteTheInput) {
  ExpectInvalid("", "empty name");
  ExpectInvalid(":2", "empty name");
  ExpectInvalid("gpu:", "empty field");
  ExpectInvalid("gpu::2", "empty field");
  ExpectInvalid("gpu:a100:", "empty field");
  ExpectInvalid("gpu:a100:2:1", "expected name[:type][:count]");
  ExpectInvalid("gpu:a100:two", "bad count \"two\"");
  ExpectInvalid("gpu:a100:2x", "bad count \"2x\"");
  ExpectInvalid("gpu:a100:-1", "bad count \"-1\"");
  ExpectInvalid("gpu:a100:2kk", "bad count \"2kk\"");
  ExpectInvalid("gpu:a100:k", "bad count \"k\"");
  ExpectInvalid("gpu:99999999999999999999", "count \"99999999999999999999\" is too large");
  ExpectInvalid("gpu:17179869184G", "count \"17179869184G\" is too large");
}

TEST(ParseGresCountTest, DigitsWithOptionalMultiplier) {
  EXPECT_EQ(ParseGresCount("0").value_or(99), 0u);
  EXPECT_EQ(ParseGresCount("8").value_or(0), 8u);
  EXPECT_EQ(ParseGresCount("2k").value_or(0), 2048u);
  EXPECT_EQ(ParseGresCount("2K").value_or(0), 2048u);
  EXPECT_EQ(ParseGresCount("1m").value_or(0), 1u << 20);
  EXPECT_EQ(ParseGresCount("1G").value_or(0), 1u << 30);
  for (const char* text : {"", "k", "-1", "1.5", "2x", "2kk", " 2", "2T"}) {
    Result<uint64_t> count = ParseGresCount(text);
    ASSERT_FALSE(count.ok()) << text;
    EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(count.status().message(), "invalid GRES count \"" + std::string(text) + "\"");
  }
  EXPECT_EQ(ParseGresCount("17179869184G").status().message(),
            "invalid GRES count \"17179869184G\": too large");
}

TEST(GresSpecTest, ToString) {
  EXPECT_EQ((GresSpec{"gpu", "a100", 2}).ToString(), "gpu:a100:2");
  EXPECT_EQ((GresSpec{"gpu", "", 2}).ToString(), "gpu:2");
  EXPECT_EQ((GresSpec{"gpu", "", 1}).ToString(), "gpu:1");
  EXPECT_EQ(Parse("shard:2k").ToString(), "shard:2048");
  for (std::string_view text : {"gpu:a100:2", "gpu:2", "gpu:1g.10gb:1", "gpu:2g:3"}) {
    EXPECT_EQ(Parse(text).ToString(), text);
  }
}

TEST(ParseGresListTest, SplitsOnCommas) {
  Result<std::vector<GresSpec>> list = ParseGresList("gpu:a100:2,nic:1,fpga");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_THAT(*list, ElementsAre(GresSpec{"gpu", "a100", 2}, GresSpec{"nic", "", 1},
                                 GresSpec{"fpga", "", 1}));
  EXPECT_EQ(FormatGresList(*list), "gpu:a100:2,nic:1,fpga:1");
}

TEST(ParseGresListTest, EmptyAndNull) {
  Result<std::vector<GresSpec>> empty = ParseGresList("");
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(*empty, IsEmpty());
  Result<std::vector<GresSpec>> null = ParseGresList("(null)");
  ASSERT_TRUE(null.ok());
  EXPECT_THAT(*null, IsEmpty());
  EXPECT_EQ(FormatGresList({}), "");
}

TEST(ParseGresListTest, Errors) {
  Result<std::vector<GresSpec>> bad = ParseGresList("gpu:2,nic:a:b");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "invalid GRES \"nic:a:b\": bad count \"b\"");

  Result<std::vector<GresSpec>> hole = ParseGresList("gpu:2,,nic");
  ASSERT_FALSE(hole.ok());
  EXPECT_EQ(hole.status().message(), "invalid GRES list \"gpu:2,,nic\": empty item");
  EXPECT_FALSE(ParseGresList("gpu,").ok());
  EXPECT_FALSE(ParseGresList(",").ok());
}

}  // namespace
}  // namespace rota
