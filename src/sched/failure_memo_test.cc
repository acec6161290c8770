#include "sched/failure_memo.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

TEST(FailureMemoTest, OnlyAnEqualRequestOnTheSameCandidatesIsKnownToFail) {
  FailureMemo memo;
  Request r;
  r.gpus_per_node = 8;
  memo.NoteFailure(r, "gpu");
  EXPECT_TRUE(memo.KnownToFail(r, "gpu"));
  EXPECT_FALSE(memo.KnownToFail(r, "other"));
  Request smaller = r;
  smaller.gpus_per_node = 4;
  EXPECT_FALSE(memo.KnownToFail(smaller, "gpu"));
  Request constrained = r;
  constrained.constraint = *FeatureExpr::Parse("a100");
  EXPECT_FALSE(memo.KnownToFail(constrained, "gpu"));
  Request pinned = r;
  pinned.required_nodes = {3};
  EXPECT_FALSE(memo.KnownToFail(pinned, "gpu"));
  memo.Clear();
  EXPECT_FALSE(memo.KnownToFail(r, "gpu"));
}

}  // namespace
}  // namespace rota::sched
