// Fair-share usage: half-life decay, billing from TRESBillingWeights (GPUs and
// MAX_TRES) and accrual into an association and its ancestors.

#include "sched/usage_ledger.h"

#include <gtest/gtest.h>

namespace rota::sched {
namespace {

TresCounts Tres(std::string_view text) {
  Result<TresCounts> t = TresCounts::Parse(text);
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : TresCounts{};
}

TresWeights Weights(std::string_view text) {
  Result<TresWeights> w = ParseTresWeights(text);
  EXPECT_TRUE(w.ok());
  return w.ok() ? *w : TresWeights{};
}

UsageCharge Charge(std::string user, std::vector<std::string> lineage, double rate, int64_t start,
                   int64_t end = 0) {
  UsageCharge c;
  c.user = std::move(user);
  c.lineage = std::move(lineage);
  c.rate = rate;
  c.start = start;
  c.end = end;
  return c;
}

TEST(DecayTest, HalvesOncePerHalfLife) {
  EXPECT_DOUBLE_EQ(DecayFactor(3600, 3600), 0.5);
  EXPECT_DOUBLE_EQ(DecayFactor(7200, 3600), 0.25);
  EXPECT_NEAR(DecayFactor(1800, 3600), 0.7071067811865476, 1e-12);
  EXPECT_DOUBLE_EQ(DecayFactor(7 * 86400, 7 * 86400), 0.5);
  // PriorityDecayHalfLife=0: no decay.
  EXPECT_DOUBLE_EQ(DecayFactor(1'000'000, 0), 1.0);
  EXPECT_DOUBLE_EQ(DecayFactor(0, 3600), 1.0);
}

TEST(BillingTest, SumsWeightedTresGpusIncluded) {
  TresCounts job = Tres("cpu=4,mem=8000M,node=1,billing=4,gres/gpu=2");
  // 4 CPUs + 8000 MB at 0.25 per GB + 2 GPUs at 32.
  EXPECT_DOUBLE_EQ(JobBilling(job, Weights("CPU=1.0,Mem=0.25G,GRES/gpu=32"), false), 69.953125);
  // MAX_TRES: the largest weighted TRES (the GPUs' 64).
  EXPECT_DOUBLE_EQ(JobBilling(job, Weights("CPU=1.0,Mem=0.25G,GRES/gpu=32"), true), 64.0);
  EXPECT_DOUBLE_EQ(JobBilling(job, Weights("CPU=20,GRES/gpu=32"), true), 80.0);
  // No weights: CPUs.
  EXPECT_DOUBLE_EQ(JobBilling(job, {}, false), 4.0);
  // Weights without GPUs bill none for them.
  EXPECT_DOUBLE_EQ(JobBilling(job, Weights("CPU=1.0"), false), 4.0);
}

TEST(BillingTest, EightGpusForADay) {
  TresCounts job = Tres("cpu=8,mem=64G,node=1,gres/gpu=8");
  double rate = JobBilling(job, Weights("CPU=1,GRES/gpu=10"), false);
  EXPECT_DOUBLE_EQ(rate, 88.0);
  UsageLedger ledger;
  ledger.Advance(86400, 0, {Charge("ann", {"phys", "root"}, rate, 1)});
  EXPECT_DOUBLE_EQ(ledger.Usage("phys", "ann"), 88.0 * 86399);
}

TEST(UsageLedgerTest, AccruesIntoAssociationAndAncestors) {
  UsageLedger ledger;
  std::vector<UsageCharge> running = {Charge("ann", {"phys", "sci", "root"}, 2.0, 1000),
                                      Charge("bob", {"chem", "sci", "root"}, 1.0, 1000)};
  ledger.Advance(1100, 0, running);
  EXPECT_DOUBLE_EQ(ledger.Usage("phys", "ann"), 200);
  EXPECT_DOUBLE_EQ(ledger.Usage("chem", "bob"), 100);
  EXPECT_DOUBLE_EQ(ledger.Usage("phys"), 200);
  EXPECT_DOUBLE_EQ(ledger.Usage("chem"), 100);
  EXPECT_DOUBLE_EQ(ledger.Usage("sci"), 300);
  EXPECT_DOUBLE_EQ(ledger.Usage("root"), 300);
  EXPECT_DOUBLE_EQ(ledger.Usage("phys", "bob"), 0);
  EXPECT_EQ(ledger.updated(), 1100);
}

TEST(UsageLedgerTest, DecaysThenAddsTheInterval) {
  UsageLedger ledger;
  ledger.Advance(1100, 100, {Charge("ann", {"a", "root"}, 2.0, 1000)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 200);
  // 100 s later: 200 halves to 100, then 100 s at 2 more.
  ledger.Advance(1200, 100, {Charge("ann", {"a", "root"}, 2.0, 1000)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 300);
  // Nothing runs: two half-lives leave a quarter.
  ledger.Advance(1400, 100, {});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 75);
  EXPECT_DOUBLE_EQ(ledger.Usage("root"), 75);
  // A clock that went back changes nothing.
  ledger.Advance(1300, 100, {Charge("ann", {"a", "root"}, 2.0, 1000)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 75);
}

TEST(UsageLedgerTest, EndedJobIsChargedUpToItsEnd) {
  UsageLedger ledger;
  ledger.Advance(1000, 0, {});
  // Started before the last update, ended within the interval: 1000..1150.
  ledger.Advance(1200, 0, {Charge("ann", {"a", "root"}, 3.0, 900, 1150)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 450);
  // Not charged twice.
  ledger.Advance(1300, 0, {Charge("ann", {"a", "root"}, 3.0, 900, 1150)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 450);
}

TEST(UsageLedgerTest, UsageFactorScalesTheRate) {
  // The controller multiplies billing by the QoS UsageFactor into the rate.
  UsageLedger ledger;
  ledger.Advance(100, 0, {Charge("ann", {"a", "root"}, 4.0 * 0.5, 0 + 1)});
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 2.0 * 99);
}

TEST(UsageLedgerTest, ResetPeriodClearsUsage) {
  UsageLedger ledger;
  ledger.Advance(1000, 0, {Charge("ann", {"a", "root"}, 1.0, 500)}, 0);
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 500);
  // Crossing midnight (the last reset): only what ran since counts.
  ledger.Advance(86400 + 100, 0, {Charge("ann", {"a", "root"}, 1.0, 500)}, 86400);
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 100);
  // The same boundary again clears nothing more.
  ledger.Advance(86400 + 200, 0, {Charge("ann", {"a", "root"}, 1.0, 500)}, 86400);
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 200);
  ledger.Clear();
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "ann"), 0);
  EXPECT_DOUBLE_EQ(ledger.Usage("a"), 0);
}

}  // namespace
}  // namespace rota::sched
