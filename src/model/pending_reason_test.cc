#include "model/pending_reason.h"

#include <gtest/gtest.h>

namespace rota::model {
namespace {

TEST(PendingReasonTest, NoneHoldsNothingAndACodeHoldsTheJob) {
  EXPECT_FALSE(PendingReason().holds());
  EXPECT_FALSE(PendingReason(""));
  PendingReason r = reason::kResources;
  EXPECT_TRUE(r);
  EXPECT_EQ(r.text(), "Resources");
  EXPECT_EQ(r.code(), "Resources");
  EXPECT_TRUE(r == reason::kResources);
  EXPECT_FALSE(r == reason::kPriority);
}

TEST(PendingReasonTest, ADetailIsShownAfterTheCodeAndLeftOutOfIt) {
  PendingReason r = PendingReason::WithDetail(reason::kReqNodeNotAvail, "UnavailableNodes:n[1-2]");
  EXPECT_EQ(r.text(), "ReqNodeNotAvail, UnavailableNodes:n[1-2]");
  EXPECT_EQ(r.code(), "ReqNodeNotAvail");
  EXPECT_FALSE(r == reason::kReqNodeNotAvail);  // The text, detail included, is what compares
}

}  // namespace
}  // namespace rota::model
