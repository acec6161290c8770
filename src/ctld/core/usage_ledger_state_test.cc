// The usage ledger survives its durable form: every association's usage, its
// per-TRES and per-QoS usage, the last update and the last reset.

#include "ctld/core/usage_ledger_state.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

TEST(UsageLedgerStateTest, RoundTripsEverythingTheLedgerHolds) {
  sched::UsageCharge c;
  c.user = "ann";
  c.qos = "gold";
  c.lineage = {"a", "root"};
  c.rate = 2.0;
  c.start = 1000;
  c.tres = *TresCounts::Parse("cpu=4,gres/gpu=2");
  sched::UsageLedger ledger;
  ledger.Advance(800, 100, {c});
  ledger.Advance(1100, 100, {c}, /*last_reset=*/900);  // Cleared at 900, charged since
  ASSERT_EQ(ledger.contents().last_reset, 900);
  ASSERT_GT(ledger.QosTresUsage("gold", "gres/gpu"), 0);

  sched::UsageLedger back = LedgerFromState(LedgerToState(ledger));
  EXPECT_EQ(back.entries(), ledger.entries());
  EXPECT_EQ(back.updated(), 1100);
  EXPECT_EQ(back.contents().last_reset, ledger.contents().last_reset);
  EXPECT_EQ(back.contents().tres_usage, ledger.contents().tres_usage);
  EXPECT_EQ(back.contents().qos_usage, ledger.contents().qos_usage);
  EXPECT_DOUBLE_EQ(back.TresUsage("a", "ann", "gres/gpu"),
                   ledger.TresUsage("a", "ann", "gres/gpu"));
  EXPECT_DOUBLE_EQ(back.QosTresUsage("gold", "cpu"), ledger.QosTresUsage("gold", "cpu"));
}

}  // namespace
}  // namespace rota::ctld
