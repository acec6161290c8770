// Fair-share in the controller core: running jobs' billing accrues at each
// recomputation, the heavier user's pending job gets the lower priority, the
// usage survives a restart (snapshot and log record) and sshare's tree.

#include <gtest/gtest.h>

#include <cmath>

#include "ctld/core/core_test_fixture.h"
#include "ctld/core/policy_entity_for_test.h"

namespace rota::ctld {
namespace {

class FairshareCoreTest : public testing::CoreTest {
 protected:
  void Load(const std::string& extra) {
    Start(
        "GresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
        "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n"
        "PriorityCalcPeriod=1\nPriorityDecayHalfLife=0\n" +
        extra +
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
        "TRESBillingWeights=CPU=1,GRES/gpu=10\n");
  }

  uint32_t Submit(const Caller& who, const SpecEdit& edit) {
    return SubmitOkAs(who, [&](wire::JobSpec& s) {
      s.set_num_tasks(1);
      edit(s);
    });
  }
  uint32_t PriorityOf(uint32_t id) { return core_->FindJob(id)->priority(); }
  // A job taking a GPU pair on one node for `seconds`: 1 CPU + 2 GPUs x 10 = 21 a second.
  uint32_t RunGpuJob(const Caller& who, int64_t seconds, const std::string& account = "") {
    uint32_t id = Submit(who, [&](wire::JobSpec& s) {
      s.set_gres("gpu:2");
      s.set_account(account);
    });
    Tick();
    EXPECT_EQ(core_->FindJob(id)->state(), wire::JOB_STATE_RUNNING);
    now_ += seconds;
    return id;
  }
  // Needs the whole cluster: stays pending while anything runs.
  uint32_t SubmitWhole(const Caller& who, const std::string& account = "") {
    return Submit(who, [&](wire::JobSpec& s) {
      s.set_min_nodes(2);
      s.set_num_tasks(8);
      s.set_account(account);
    });
  }
  static const wire::FairshareRow* Row(const wire::FairshareResponse& r, const std::string& account,
                                       const std::string& user) {
    for (const wire::FairshareRow& row : r.rows()) {
      if (row.account() == account && row.user() == user) return &row;
    }
    return nullptr;
  }
};

TEST_F(FairshareCoreTest, HeavierUserGetsTheLowerPriority) {
  Load("");
  RunGpuJob(alice_, 100);
  uint32_t a = SubmitWhole(alice_);
  uint32_t b = SubmitWhole(bob_);
  Effects e = Tick();
  // Without accounting each user sits under root with one share.
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 2100);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root"), 2100);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "bob"), 0);
  // Fair Tree: bob (no usage) ranks 2 of 2, alice 1 of 2: 10000 against 5000.
  EXPECT_EQ(PriorityOf(b) - PriorityOf(a), 5000u);
  wire::PriorityResponse sprio = core_->DescribePriorities({}, now_);
  ASSERT_EQ(sprio.rows_size(), 2);
  EXPECT_DOUBLE_EQ(sprio.rows(0).normalized().fairshare(), 0.5);
  EXPECT_DOUBLE_EQ(sprio.rows(0).weighted().fairshare(), 5000);
  EXPECT_DOUBLE_EQ(sprio.rows(1).normalized().fairshare(), 1.0);
  // One usage record for the recomputation.
  int usage_records = 0;
  for (const wire::StateRecord& r : e.records) usage_records += r.has_fairshare_usage();
  EXPECT_EQ(usage_records, 1);

  // sshare: the caller's own row unless all users are asked for.
  wire::FairshareRequest mine;
  wire::FairshareResponse own = core_->DescribeFairshare(mine, "bob");
  EXPECT_TRUE(own.fair_tree());
  EXPECT_NE(Row(own, "root", ""), nullptr);
  EXPECT_NE(Row(own, "root", "bob"), nullptr);
  EXPECT_EQ(Row(own, "root", "alice"), nullptr);
  wire::FairshareRequest all;
  all.set_all_users(true);
  wire::FairshareResponse tree = core_->DescribeFairshare(all, "bob");
  const wire::FairshareRow* alice = Row(tree, "root", "alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_DOUBLE_EQ(alice->raw_usage(), 2100);
  EXPECT_DOUBLE_EQ(alice->effective_usage(), 1.0);
  EXPECT_DOUBLE_EQ(alice->norm_shares(), 0.5);
  EXPECT_DOUBLE_EQ(alice->fairshare(), 0.5);
  EXPECT_DOUBLE_EQ(alice->level_fs(), 0.5);
  EXPECT_EQ(Row(tree, "root", "bob")->level_fs(), sched::kInfiniteLevelFs);
}

TEST_F(FairshareCoreTest, UsageSurvivesARestart) {
  Load("PriorityDecayHalfLife=00:10:00\n");
  RunGpuJob(alice_, 600);
  Effects e = Tick();
  double usage = core_->usage_ledger().Usage("root", "alice");
  EXPECT_DOUBLE_EQ(usage, 21 * 600);
  // From the snapshot.
  ControllerCore from_snapshot(config_);
  wire::StateSnapshot snap = core_->Snapshot();
  from_snapshot.Restore(&snap, {});
  EXPECT_EQ(from_snapshot.usage_ledger().entries(), core_->usage_ledger().entries());
  wire::StateSnapshot parsed;
  ASSERT_TRUE(parsed.ParseFromString(core_->SerializeSnapshot()));
  EXPECT_TRUE(parsed.has_fairshare_usage());
  // From the log record.
  std::vector<wire::StateRecord> log;
  for (const wire::StateRecord& r : e.records) {
    if (r.has_fairshare_usage()) log.push_back(r);
  }
  ASSERT_EQ(log.size(), 1u);
  ControllerCore from_log(config_);
  from_log.Restore(nullptr, log);
  EXPECT_DOUBLE_EQ(from_log.usage_ledger().Usage("root", "alice"), usage);
  EXPECT_EQ(from_log.usage_ledger().updated(), now_);
  // The restored controller keeps decaying from where it was: one half-life
  // later (the job no longer in its records) half is left.
  Effects later;
  from_log.Tick(now_ + 600, later);
  EXPECT_DOUBLE_EQ(from_log.usage_ledger().Usage("root", "alice"), usage / 2);
}

TEST_F(FairshareCoreTest, AccountsSharesAndUsageFactorWithClassic) {
  Load("PriorityFlags=NO_FAIR_TREE\n");
  wire::PolicyState policy;
  auto add = [&](const std::string& kind, const std::string& name,
                 const std::map<std::string, std::string>& fields) {
    testing::AddPolicyEntity(policy, kind, name, fields);
  };
  add("account", "physics", {{"Fairshare", "3"}});
  add("account", "chem", {{"Fairshare", "1"}});
  add("user", "alice", {{"DefaultAccount", "physics"}});
  add("user", "bob", {{"DefaultAccount", "chem"}, {"Fairshare", "parent"}});
  add("qos", "normal", {{"UsageFactor", "0.5"}});
  Effects pe;
  ASSERT_TRUE(core_->SetPolicy(policy, pe));
  RunGpuJob(alice_, 100, "physics");
  Tick();
  // 21 a second at UsageFactor 0.5, into alice's association and her accounts.
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("physics", "alice"), 1050);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("physics"), 1050);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root"), 1050);
  wire::FairshareRequest all;
  all.set_all_users(true);
  wire::FairshareResponse tree = core_->DescribeFairshare(all, "root");
  EXPECT_FALSE(tree.fair_tree());
  const wire::FairshareRow* alice = Row(tree, "physics", "alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_DOUBLE_EQ(alice->norm_shares(), 0.75);
  // Classic: 2^(-1 / 0.75).
  EXPECT_NEAR(alice->fairshare(), std::exp2(-1.0 / 0.75), 1e-12);
  const wire::FairshareRow* bob = Row(tree, "chem", "bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(bob->raw_shares(), "parent");
  EXPECT_DOUBLE_EQ(bob->norm_shares(), 0.25);
  EXPECT_DOUBLE_EQ(bob->fairshare(), 1.0);
  EXPECT_EQ(Row(tree, "physics", "")->raw_shares(), "3");
  EXPECT_EQ(Row(tree, "physics", "")->depth(), 1u);
}

TEST_F(FairshareCoreTest, DailyUsageResetKeepsOnlyWhatRanSinceMidnight) {
  Load("PriorityUsageResetPeriod=DAILY\n");
  const int64_t midnight = kT0 - kT0 % 86400 + 86400;  // kT0 is 08:00 UTC
  RunGpuJob(alice_, 100);                              // Keeps running past midnight
  Tick();
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 2100);
  // The nodes keep answering, so the job keeps running.
  auto tick_at = [&](int64_t t) {
    now_ = t;
    Effects e;
    ASSERT_TRUE(core_->NodeRegistered("n1", kT0, now_, e).ok());
    ASSERT_TRUE(core_->NodeRegistered("n2", kT0, now_, e).ok());
    Tick();
  };
  for (int64_t t = kT0 + 200; t < midnight - 100; t += 200) tick_at(t);
  tick_at(midnight - 100);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 21.0 * (midnight - 100 - kT0));
  tick_at(midnight + 200);  // PriorityCalcPeriod=1 is a minute
  ASSERT_EQ(core_->FindJob(1)->state(), wire::JOB_STATE_RUNNING);
  // Only the 200 s since midnight count, at 21 a second.
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 4200);
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root"), 4200);
}

TEST_F(FairshareCoreTest, UsageResetNowClearsWhenTheConfigurationIsRead) {
  Load("");
  RunGpuJob(alice_, 100);
  Tick();
  ASSERT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 2100);
  wire::StateSnapshot snap = core_->Snapshot();
  Load("PriorityUsageResetPeriod=NOW\n");
  core_->Restore(&snap, {});
  EXPECT_DOUBLE_EQ(core_->usage_ledger().Usage("root", "alice"), 0);
  // The cleared ledger is logged at the next recomputation, so that a
  // restart without NOW does not bring the old usage back.
  Effects e = Tick();
  bool logged = false;
  for (const wire::StateRecord& r : e.records) {
    if (r.has_fairshare_usage()) logged = true;
  }
  EXPECT_TRUE(logged);
}

}  // namespace
}  // namespace rota::ctld
