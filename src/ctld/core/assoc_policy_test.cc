// Several accounts per user, per-association QoS lists and GrpTRESMins in the
// controller core: which account and QoS a job gets at submission, limits
// and fair-share per (account, user) association, and jobs held once an
// association or QoS has used its TRES-minutes.
#include <gtest/gtest.h>

#include "ctld/core/core_test_fixture.h"
#include "ctld/core/policy_entity_for_test.h"
#include "ctld/core/usage_ledger_state.h"
#include "model/job_state.h"
#include "sched/limit_check.h"
#include "sched/usage_ledger.h"

namespace rota::ctld {
namespace {

constexpr char kInvalidAccount[] = "Invalid account or account/partition combination specified";
constexpr char kInvalidQos[] = "Invalid qos specification";

class AssocPolicyTest : public testing::CoreTest {
 protected:
  void SetUp() override { Load("AccountingStorageEnforce=associations,limits,qos\n"); }

  void Load(const std::string& enforce) {
    Start(
        "GresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
        "AccountingStorageTRES=gres/gpu\n"
        "PriorityType=priority/multifactor\nPriorityCalcPeriod=0:01\n"
        "PriorityDecayHalfLife=0\nSlurmdTimeout=0\n" +
        enforce +
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
        "DefaultTime=1:00:00\n");
  }
  void Add(const std::string& kind, const std::string& name,
           std::map<std::string, std::string> fields = {}) {
    testing::AddPolicyEntity(policy_, kind, name, fields);
  }
  // bob in accounts a (default) and b, with `settings` on his association with a.
  void AddBob(std::map<std::string, std::string> settings_a = {},
              std::map<std::string, std::string> settings_b = {}) {
    Add("account", "a");
    Add("account", "b");
    Add("account", "c");
    Add("user", "bob", {{"DefaultAccount", "a"}});
    settings_a["Account"] = "a";
    settings_a["User"] = "bob";
    settings_b["Account"] = "b";
    settings_b["User"] = "bob";
    Add("assoc", "a|bob", settings_a);
    Add("assoc", "b|bob", settings_b);
    Add("qos", "normal");
    Add("qos", "high");
    Add("qos", "low");
  }
  void Apply() {
    Effects e;
    core_->SetPolicy(policy_, e);
  }
  Result<uint32_t> Submit(const std::string& account, const std::string& qos = "",
                          const std::string& gres = "", int64_t time_limit_s = 0) {
    wire::JobSpec spec;
    spec.set_account(account);
    spec.set_qos(qos);
    spec.set_gres(gres);
    spec.set_num_tasks(1);
    if (time_limit_s > 0) spec.set_time_limit_s(time_limit_s);
    // The whole request is `spec`: no name.
    Result<wire::SubmitJobResponse> r =
        SubmitAs(bob_, [&](wire::JobSpec& s) { s = std::move(spec); });
    if (!r.ok()) return r.status();
    return r->job_id();
  }
  void TickAt(int64_t at) {
    now_ = at;
    Tick();
  }
  std::string StateOf(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }

  wire::PolicyState policy_;
};

TEST_F(AssocPolicyTest, AJobRunsUnderAnyAccountOfTheUserAndDefaultsToItsDefault) {
  AddBob();
  Apply();
  Result<uint32_t> plain = Submit("");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(Job(*plain).spec().account(), "a");
  Result<uint32_t> in_b = Submit("b");
  ASSERT_TRUE(in_b.ok()) << in_b.status().message();
  EXPECT_EQ(Job(*in_b).spec().account(), "b");
  EXPECT_EQ(Submit("c").status().message(), kInvalidAccount);
}

TEST_F(AssocPolicyTest, LimitsApplyPerAssociation) {
  AddBob({{"MaxJobs", "1"}});
  Apply();
  uint32_t a1 = Submit("a").value();
  uint32_t a2 = Submit("a").value();
  uint32_t b1 = Submit("b").value();
  TickAt(now_ + 1);
  EXPECT_EQ(StateOf(a1), "RUNNING");
  EXPECT_EQ(StateOf(a2), "PENDING");
  EXPECT_EQ(Job(a2).reason(), "AssocMaxJobsLimit");
  EXPECT_EQ(StateOf(b1), "RUNNING");  // bob's association with b sets no limit
}

TEST_F(AssocPolicyTest, QosMustBeInTheAssociationsListAndDefaultQosApplies) {
  AddBob({{"QOS", "high,normal"}, {"DefaultQOS", "high"}});
  Apply();
  Result<uint32_t> plain = Submit("a");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(Job(*plain).spec().qos(), "high");
  EXPECT_TRUE(Submit("a", "normal").ok());
  EXPECT_EQ(Submit("a", "low").status().message(), kInvalidQos);
  // bob's association with b has no list and b none either: every QoS.
  EXPECT_TRUE(Submit("b", "low").ok());
}

TEST_F(AssocPolicyTest, QosListsAreInheritedFromTheAccountWithEdits) {
  policy_.Clear();
  Add("account", "a", {{"QOS", "low,normal"}, {"DefaultQOS", "low"}});
  Add("user", "bob", {{"DefaultAccount", "a"}});
  Add("assoc", "a|bob", {{"Account", "a"}, {"User", "bob"}, {"QOS", "+high,-normal"}});
  Add("qos", "normal");
  Add("qos", "high");
  Add("qos", "low");
  Apply();
  // The account's DefaultQOS is inherited, its list edited by bob's.
  Result<uint32_t> plain = Submit("a");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(Job(*plain).spec().qos(), "low");
  EXPECT_TRUE(Submit("a", "high").ok());
  EXPECT_EQ(Submit("a", "normal").status().message(), kInvalidQos);
}

TEST_F(AssocPolicyTest, WithoutQosEnforcementTheListIsNotChecked) {
  Load("AccountingStorageEnforce=associations\n");
  AddBob({{"QOS", "high"}});
  Apply();
  Result<uint32_t> id = Submit("a", "low");
  EXPECT_TRUE(id.ok());
  // The one QoS of a list of one is the default, as Slurm picks it.
  EXPECT_EQ(Job(Submit("a").value()).spec().qos(), "high");
}

TEST_F(AssocPolicyTest, AnAssociationOverItsCpuMinutesHoldsNewJobsButKeepsRunningOnes) {
  // 1 CPU for 20 minutes = 20 CPU-minutes, over bob/a's 15.
  AddBob({{"GrpTRESMins", "cpu=15"}});
  Apply();
  uint32_t first = Submit("a").value();
  TickAt(now_ + 1);
  ASSERT_EQ(StateOf(first), "RUNNING");
  TickAt(now_ + 1200);
  uint32_t held = Submit("a").value();
  uint32_t elsewhere = Submit("b").value();
  TickAt(now_ + 60);
  EXPECT_EQ(StateOf(first), "RUNNING");  // Not killed
  EXPECT_EQ(StateOf(held), "PENDING");
  EXPECT_EQ(Job(held).reason(), "AssocGrpCPUMinutesLimit");
  EXPECT_EQ(StateOf(elsewhere), "RUNNING");  // bob's other association is not limited
  double cpu_s = core_->usage_ledger().TresUsage("a", "bob", "cpu");
  EXPECT_GE(cpu_s, 15 * 60.0);
  EXPECT_EQ(core_->usage_ledger().TresUsage("a", "", "cpu"), cpu_s);  // The account's too
}

TEST_F(AssocPolicyTest, QosAndAccountGpuMinutesHoldWithTheirReasons) {
  AddBob();
  policy_.mutable_entities()->erase(policy_.mutable_entities()->begin() + 1);  // Account b
  Add("account", "b", {{"GrpTRESMins", "gres/gpu=1000"}});
  Add("qos", "gpu", {{"GrpTRESMins", "gres/gpu=30"}});
  Apply();
  uint32_t first = Submit("a", "gpu", "gpu:2").value();
  TickAt(now_ + 1);
  ASSERT_EQ(StateOf(first), "RUNNING");
  TickAt(now_ + 20 * 60);  // 2 GPUs x 20 minutes = 40 GPU-minutes
  uint32_t qos_held = Submit("a", "gpu", "gpu:1").value();
  TickAt(now_ + 60);
  EXPECT_EQ(Job(qos_held).reason(), "QOSGrpGRESMinutes");
  // Under b (1000 GPU-minutes, nothing used) a job of another QoS runs.
  uint32_t in_b = Submit("b", "", "gpu:1").value();
  TickAt(now_ + 60);
  EXPECT_EQ(StateOf(in_b), "RUNNING");
}

TEST_F(AssocPolicyTest, SafeHoldsAJobThatCouldGoPastTheLimit) {
  Load("AccountingStorageEnforce=associations,limits,qos,safe\n");
  AddBob({{"GrpTRESMins", "cpu=100"}});
  Apply();
  // 1 CPU for 2 hours could use 120 CPU-minutes: over 100 with safe.
  uint32_t long_job = Submit("a", "", "", 7200).value();
  uint32_t short_job = Submit("a", "", "", 3600).value();
  TickAt(now_ + 1);
  EXPECT_EQ(StateOf(long_job), "PENDING");
  EXPECT_EQ(Job(long_job).reason(), "AssocGrpCPUMinutesLimit");
  EXPECT_EQ(StateOf(short_job), "RUNNING");
}

TEST_F(AssocPolicyTest, FairshareHasALeafPerAssociation) {
  AddBob();
  Apply();
  uint32_t in_a = Submit("a").value();
  TickAt(now_ + 1);
  ASSERT_EQ(StateOf(in_a), "RUNNING");
  TickAt(now_ + 120);
  EXPECT_GT(core_->usage_ledger().Usage("a", "bob"), 0);
  EXPECT_EQ(core_->usage_ledger().Usage("b", "bob"), 0);
  wire::FairshareRequest req;
  req.set_all_users(true);
  wire::FairshareResponse shares = core_->DescribeFairshare(req, "bob");
  int bob_rows = 0;
  for (const wire::FairshareRow& r : shares.rows()) bob_rows += r.user() == "bob";
  EXPECT_EQ(bob_rows, 2);
}

TEST(UsageLedgerTresTest, TresUsageDecaysAndSurvivesTheState) {
  sched::UsageCharge c;
  c.user = "bob";
  c.qos = "gpu";
  c.lineage = {"a", "root"};
  c.tres = TresCounts::Parse("cpu=4,gres/gpu=2,billing=9").value();
  c.usage_factor = 2.0;
  c.rate = 10;  // Billing x UsageFactor
  c.start = 100;
  sched::UsageLedger ledger;
  ledger.Advance(100, 3600, {});
  ledger.Advance(160, 3600, {c});  // 60 s
  EXPECT_DOUBLE_EQ(ledger.TresUsage("a", "bob", "cpu"), 4 * 2.0 * 60);
  EXPECT_DOUBLE_EQ(ledger.TresUsage("root", "", "gres/gpu"), 2 * 2.0 * 60);
  EXPECT_DOUBLE_EQ(ledger.TresUsage("a", "bob", "billing"), 10 * 60);  // The rate, not the count
  EXPECT_DOUBLE_EQ(ledger.QosTresUsage("gpu", "gres/gpu"), 2 * 2.0 * 60);
  EXPECT_EQ(ledger.QosTresUsage("normal", "cpu"), 0);
  // One half-life later, half.
  c.end = 160;
  ledger.Advance(160 + 3600, 3600, {c});
  EXPECT_DOUBLE_EQ(ledger.TresUsage("a", "bob", "cpu"), 4 * 2.0 * 60 / 2);
  sched::UsageLedger restored = LedgerFromState(LedgerToState(ledger));
  EXPECT_DOUBLE_EQ(restored.TresUsage("a", "bob", "cpu"), 4 * 2.0 * 60 / 2);
  EXPECT_DOUBLE_EQ(restored.QosTresUsage("gpu", "gres/gpu"), 2 * 2.0 * 60 / 2);
}

}  // namespace
}  // namespace rota::ctld
