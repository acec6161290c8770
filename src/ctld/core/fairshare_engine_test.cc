// The fair-share engine on its own: handed a configuration, no policy and a
// job map, as the controller core hands them (fairshare_hooks_test.cc covers
// it through the core).

#include "ctld/core/fairshare_engine.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr int64_t kT0 = 1'800'000'000;

class FairshareEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded =
        LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\n"
                               "PriorityType=priority/multifactor\nPriorityDecayHalfLife=0\n"
                               "NodeName=n1 CPUs=4 RealMemory=16000\n"
                               "PartitionName=batch Nodes=n1 Default=YES MaxTime=1-00:00:00\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
  }
  // A job of `user` holding `cpus` since `start` (0: pending).
  void AddJob(uint32_t id, const std::string& user, uint32_t cpus, int64_t start) {
    wire::JobRecord job;
    job.set_job_id(id);
    job.mutable_spec()->set_user(user);
    job.mutable_spec()->set_partition("batch");
    job.set_state(start > 0 ? wire::JOB_STATE_RUNNING : wire::JOB_STATE_PENDING);
    job.set_start_time(start);
    job.set_alloc_cpus(cpus);
    jobs_.Insert(std::move(job));
  }
  FairshareEngine::Inputs In() const { return {*config_, nullptr, jobs_}; }

  TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  JobTable jobs_{1};
  FairshareEngine engine_;
};

TEST_F(FairshareEngineTest, ChargesRunningJobsAndRanksTheHeavierUserLower) {
  AddJob(1, "alice", 4, kT0);
  AddJob(2, "bob", 1, kT0);
  AddJob(3, "carol", 1, 0);  // Pending: charged nothing, but in the tree
  EXPECT_FALSE(engine_.Factor("root", "alice").has_value());  // No tree yet
  Effects e;
  engine_.Update(In(), kT0, e);
  e = Effects();
  engine_.Update(In(), kT0 + 100, e);
  EXPECT_DOUBLE_EQ(engine_.ledger().Usage("root", "alice"), 400);
  EXPECT_DOUBLE_EQ(engine_.ledger().Usage("root", "bob"), 100);
  EXPECT_DOUBLE_EQ(engine_.ledger().Usage("root"), 500);
  ASSERT_EQ(e.records.size(), 1u);
  EXPECT_TRUE(e.records[0].has_fairshare_usage());
  const double alice = engine_.Factor("root", "alice").value_or(-1);
  const double bob = engine_.Factor("root", "bob").value_or(-1);
  const double carol = engine_.Factor("root", "carol").value_or(-1);
  EXPECT_LT(alice, bob);
  EXPECT_LT(bob, carol);

  wire::FairshareRequest everyone;
  everyone.set_all_users(true);
  wire::FairshareResponse shown = engine_.Describe(In(), everyone, "alice");
  int users = 0;
  for (const wire::FairshareRow& row : shown.rows()) users += row.user().empty() ? 0 : 1;
  EXPECT_EQ(users, 3);
}

TEST_F(FairshareEngineTest, AClearedLedgerIsLoggedOnceAndRestoresFromItsRecord) {
  AddJob(1, "alice", 2, kT0);
  Effects e;
  engine_.Update(In(), kT0, e);
  engine_.Update(In(), kT0 + 50, e);
  ASSERT_FALSE(e.records.empty());
  const wire::UsageLedgerState logged = e.records.back().fairshare_usage();

  FairshareEngine restored;
  restored.Restore(logged);
  EXPECT_DOUBLE_EQ(restored.ledger().Usage("root", "alice"), 100);

  jobs_.Clear();
  restored.ClearNow();
  EXPECT_DOUBLE_EQ(restored.ledger().Usage("root", "alice"), 0);
  Effects after_clear;
  restored.Update(In(), kT0 + 60, after_clear);
  ASSERT_EQ(after_clear.records.size(), 1u);  // The cleared ledger, once
  Effects idle;
  restored.Update(In(), kT0 + 70, idle);
  EXPECT_TRUE(idle.records.empty());  // No usage, nothing cleared since
}

TEST_F(FairshareEngineTest, AccountIsTheJobsOwnElseRoot) {
  wire::JobSpec spec;
  spec.set_user("alice");
  EXPECT_EQ(FairshareEngine::AccountOf(spec, nullptr), "root");
  spec.set_account("physics");
  EXPECT_EQ(FairshareEngine::AccountOf(spec, nullptr), "physics");
}

}  // namespace
}  // namespace rota::ctld
