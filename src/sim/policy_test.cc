#include "sim/policy.h"

#include <gtest/gtest.h>

namespace rota::sim {
namespace {

TEST(PolicyTest, FcfsRunsAndBackfillPoliciesAreRefusedClearly) {
  ASSERT_TRUE(ParsePolicy("fcfs").ok());
  EXPECT_EQ(*ParsePolicy("fcfs"), Policy::kFcfs);
  for (const char* name : {"easy", "conservative", "slurm"}) {
    Result<Policy> p = ParsePolicy(name);
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_NE(p.status().message().find("backfill issue"), std::string::npos)
        << p.status().message();
  }
  EXPECT_NE(ParsePolicy("sjf").status().message().find("unknown --policy"), std::string::npos);
}

}  // namespace
}  // namespace rota::sim
