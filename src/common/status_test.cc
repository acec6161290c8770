#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace rota {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = InvalidArgument("bad 'x'");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: bad 'x'");
}

Status FailsWhenNegative(int v) {
  if (v < 0) return OutOfRange("negative");
  return Status::Ok();
}

Status Chain(int v) {
  ROTA_RETURN_IF_ERROR(FailsWhenNegative(v));
  return NotFound("reached the end");
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstError) {
  EXPECT_EQ(Chain(-1).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(Chain(1).code(), StatusCode::kNotFound);
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  EXPECT_TRUE(good.status().ok());

  Result<int> bad = InvalidArgument("nope");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "nope");
  EXPECT_EQ(bad.value_or(3), 3);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

}  // namespace
}  // namespace rota
