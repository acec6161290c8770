// AccountingPolicy on its own, without a controller core: it owns the table
// and what AccountingStorageEnforce asks, and reads the job table it is given.
#include "ctld/core/accounting_policy.h"

#include <gtest/gtest.h>

#include "ctld/core/policy_entity_for_test.h"
#include "sched/limit_check.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

class AccountingPolicyTest : public ::testing::Test {
 protected:
  std::shared_ptr<const conf::ClusterConfig> Config(const std::string& enforce) {
    auto loaded = rota::testing::LoadConfigFiles(
        dir_, {std::string(rota::testing::kMinimalHead) + enforce +
               "NodeName=n1 CPUs=4 RealMemory=8000\n"
               "PartitionName=batch Nodes=n1 Default=YES QOS=part_qos\n"});
    EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
    return *loaded.config;
  }
  static wire::PolicyState Table(uint32_t max_jobs) {
    wire::PolicyState s;
    testing::AddPolicyEntity(s, "account", "physics");
    testing::AddPolicyEntity(s, "user", "alice",
                             {{"DefaultAccount", "physics"}, {"AdminLevel", "Operator"}});
    testing::AddPolicyEntity(s, "user", "bob", {{"DefaultAccount", "physics"}});
    testing::AddPolicyEntity(s, "qos", "normal", {{"MaxJobsPerUser", std::to_string(max_jobs)}});
    return s;
  }
  static wire::JobRecord Running(uint32_t id, const std::string& user) {
    wire::JobRecord j;
    j.set_job_id(id);
    j.mutable_spec()->set_user(user);
    j.mutable_spec()->set_account("physics");
    j.mutable_spec()->set_num_tasks(1);
    j.set_state(wire::JOB_STATE_RUNNING);
    j.add_nodes("n1");
    j.set_alloc_tres("cpu=1");
    return j;
  }

  rota::testing::TempDir dir_;
  JobTable jobs_{1};
  sched::UsageLedger ledger_;
};

TEST_F(AccountingPolicyTest, AChangedTableIsRecordedAndTheSameOneIsNot) {
  AccountingPolicy policy(Config("AccountingStorageEnforce=associations,limits\n"), jobs_);
  EXPECT_EQ(policy.table(), nullptr);
  Effects e;
  EXPECT_TRUE(policy.Set(Table(1), e));
  ASSERT_EQ(e.records.size(), 1u);
  EXPECT_TRUE(e.records[0].has_policy());
  ASSERT_NE(policy.table(), nullptr);
  Effects again;
  EXPECT_FALSE(policy.Set(Table(1), again));
  EXPECT_TRUE(again.records.empty());
  EXPECT_TRUE(policy.Set(Table(2), again));  // A limit changed
  EXPECT_EQ(again.records.size(), 1u);
  // Restored from the log: held, nothing recorded.
  AccountingPolicy restored(Config(""), jobs_);
  restored.Restore(e.records[0].policy());
  ASSERT_NE(restored.table(), nullptr);
  EXPECT_NE(restored.table()->FindUser("alice"), nullptr);
}

TEST_F(AccountingPolicyTest, AdminLevelAndPrivateDataComeFromTheTable) {
  AccountingPolicy policy(Config("PrivateData=jobs\n"), jobs_);
  const Caller alice{1001, 1001, "alice", "alice", false};
  const Caller bob{1002, 1002, "bob", "bob", false};
  EXPECT_FALSE(policy.WithAdminLevel(alice).privileged);  // No table yet
  EXPECT_EQ(policy.JobsVisibleOnlyTo(alice), 1001u);
  Effects e;
  policy.Set(Table(1), e);
  EXPECT_TRUE(policy.WithAdminLevel(alice).privileged);
  EXPECT_EQ(policy.JobsVisibleOnlyTo(alice), std::nullopt);
  EXPECT_FALSE(policy.WithAdminLevel(bob).privileged);
  EXPECT_EQ(policy.JobsVisibleOnlyTo(bob), 1002u);
}

TEST_F(AccountingPolicyTest, SubmissionChecksFollowEnforcementAndReconfigure) {
  std::shared_ptr<const conf::ClusterConfig> config = Config("");
  AccountingPolicy policy(config, jobs_);
  Effects e;
  policy.Set(Table(1), e);
  const conf::PartitionConfig& batch = *config->FindPartition("batch");
  const Caller carol{1003, 1003, "carol", "carol", false};
  wire::JobSpec spec;
  spec.set_user("carol");
  // Nothing enforced: any user; a QoS must be "normal" or a partition's.
  EXPECT_TRUE(policy.CheckAtSubmit(spec, batch, carol).ok());
  spec.set_qos("part_qos");
  EXPECT_TRUE(policy.CheckQosKnown(spec).ok());
  spec.set_qos("gold");
  EXPECT_EQ(policy.CheckQosKnown(spec).message(), "Invalid qos specification");

  policy.Reconfigure(Config("AccountingStorageEnforce=associations\n"));
  spec.clear_qos();
  EXPECT_EQ(policy.CheckAtSubmit(spec, batch, carol).message(),
            "Invalid account or account/partition combination specified");
  spec.set_user("bob");
  EXPECT_TRUE(policy.CheckAtSubmit(spec, batch, carol).ok());
  EXPECT_EQ(spec.account(), "physics");  // The user's default account filled in
  spec.set_qos("gold");
  EXPECT_TRUE(policy.CheckQosKnown(spec).ok());  // The table's QoS rule applies instead
}

TEST_F(AccountingPolicyTest, RunningJobsOfTheTableCountAgainstItsLimits) {
  AccountingPolicy policy(Config("AccountingStorageEnforce=associations,limits\n"), jobs_);
  EXPECT_EQ(policy.RunningUsage(ledger_, 0), nullptr);  // No table: nothing to count
  Effects e;
  policy.Set(Table(1), e);
  jobs_.Insert(Running(1, "bob"));
  wire::JobRecord next = Running(2, "bob");
  next.set_state(wire::JOB_STATE_PENDING);
  next.clear_nodes();
  std::unique_ptr<sched::LimitUsage> usage = policy.RunningUsage(ledger_, 0);
  ASSERT_NE(usage, nullptr);
  EXPECT_EQ(policy.LimitReason(usage.get(), next).text(), "QOSMaxJobsPerUserLimit");
  wire::JobRecord alices = Running(3, "alice");
  EXPECT_FALSE(policy.LimitReason(usage.get(), alices));  // Another user's limit
  policy.CountStarted(usage.get(), alices);
  EXPECT_EQ(policy.LimitReason(usage.get(), alices).text(), "QOSMaxJobsPerUserLimit");
  EXPECT_TRUE(policy.LimitHitOf(*usage, next).has_value());
}

}  // namespace
}  // namespace rota::ctld
