#include "noded/health_check_gate.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

HealthCheckGate Gate(std::vector<std::string> states) {
  Result<HealthCheckGate> g = HealthCheckGate::FromStates(states);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : HealthCheckGate{};
}

TEST(HealthCheckGate, LoadFromHeldCpus) {
  EXPECT_EQ(LoadOf(0, 32), NodeLoad::kIdle);
  EXPECT_EQ(LoadOf(1, 32), NodeLoad::kMixed);
  EXPECT_EQ(LoadOf(32, 32), NodeLoad::kAllocated);
}

TEST(HealthCheckGate, AnyRunsInEveryState) {
  for (HealthCheckGate g : {Gate({"ANY"}), Gate({}), Gate({"CYCLE"})}) {
    EXPECT_TRUE(g.Due(NodeLoad::kIdle, true));
    EXPECT_TRUE(g.Due(NodeLoad::kMixed, false));
    EXPECT_TRUE(g.Due(NodeLoad::kAllocated, false));
  }
  EXPECT_TRUE(Gate({"CYCLE", "ANY"}).cycle());
  EXPECT_FALSE(Gate({"ANY"}).cycle());
}

TEST(HealthCheckGate, OnlyTheNamedStates) {
  HealthCheckGate idle_or_mixed = Gate({"idle", "MIXED"});
  EXPECT_TRUE(idle_or_mixed.Due(NodeLoad::kIdle, false));
  EXPECT_TRUE(idle_or_mixed.Due(NodeLoad::kMixed, false));
  EXPECT_FALSE(idle_or_mixed.Due(NodeLoad::kAllocated, false));

  HealthCheckGate alloc = Gate({"ALLOC"});
  EXPECT_FALSE(alloc.Due(NodeLoad::kIdle, false));
  EXPECT_TRUE(alloc.Due(NodeLoad::kAllocated, false));
}

TEST(HealthCheckGate, NondrainedIdleSkipsANodeItDrained) {
  HealthCheckGate g = Gate({"NONDRAINED_IDLE"});
  EXPECT_TRUE(g.Due(NodeLoad::kIdle, false));
  EXPECT_FALSE(g.Due(NodeLoad::kIdle, true));
  EXPECT_FALSE(g.Due(NodeLoad::kMixed, false));
  EXPECT_TRUE(Gate({"IDLE"}).Due(NodeLoad::kIdle, true));  // IDLE checks drained nodes too
}

TEST(HealthCheckGate, UnknownStateIsRefused) {
  Result<HealthCheckGate> g = HealthCheckGate::FromStates({"IDLE", "BUSY"});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("BUSY"), std::string::npos);
}

}  // namespace
}  // namespace rota::noded
