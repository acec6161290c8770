#include "sched/failure_memo.h"

#include <gtest/gtest.h>

#include <vector>

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

TEST(FingerprintTest, EqualRequestsOnlyGiveEqualKeys) {
  Request r;
  r.tasks = 4;
  r.constraint = *FeatureExpr::Parse("a100");
  r.required_nodes = {1, 2};
  Request same = r;
  EXPECT_EQ(Fingerprint(r), Fingerprint(same));
  std::vector<Request> others(6, r);
  others[0].exclusive = true;
  others[1].nodes_fixed = !r.nodes_fixed;
  others[2].tasks = 5;
  others[3].required_nodes = {1};
  others[4].excluded_nodes = {2};  // The same node ids, in the other list
  others[4].required_nodes = {1};
  others[5].constraint = *FeatureExpr::Parse("a10");
  for (size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(Fingerprint(r), Fingerprint(others[i])) << i;
    for (size_t j = i + 1; j < others.size(); ++j) {
      EXPECT_NE(Fingerprint(others[i]), Fingerprint(others[j])) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace rota::sched
