// The controller core with an accounting policy: submit-time checks, pending
// reasons from limits, and the policy kept in durable state.
#include <gtest/gtest.h>

#include "ctld/core/accounting_records.h"
#include "ctld/core/core_test_fixture.h"
#include "ctld/core/policy_entity_for_test.h"
#include "model/job_state.h"
#include "sched/limit_check.h"

namespace rota::ctld {
namespace {

class PolicyHooksTest : public testing::CoreTest {
 protected:
  void SetUp() override { Load("AccountingStorageEnforce=associations,limits,qos\n"); }

  void Load(const std::string& extra, const std::string& partition_extra = "") {
    Start(
        "GresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n"
        "AccountingStorageTRES=gres/gpu\n" +
        extra +
        "NodeName=n[1-2] CPUs=4 RealMemory=16000 Gres=gpu:a100:2\n"
        "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
        "DefaultTime=1:00:00\n"
        "PartitionName=guarded Nodes=n[1-2] " +
        partition_extra + "\n");
  }

  void Add(const std::string& kind, const std::string& name,
           std::map<std::string, std::string> fields = {}) {
    testing::AddPolicyEntity(policy_, kind, name, fields);
  }
  // The usual tree: physics under root, alice and bob in it, QoS normal and gpu.
  void AddDefaults() {
    Add("account", "physics");
    Add("user", "alice", {{"DefaultAccount", "physics"}});
    Add("user", "bob", {{"DefaultAccount", "physics"}});
    Add("qos", "normal");
  }
  bool Apply() {
    Effects e;
    bool changed = core_->SetPolicy(policy_, e);
    log_.insert(log_.end(), e.records.begin(), e.records.end());
    return changed;
  }

  // The whole request is `spec` (no name), one task unless it says otherwise.
  Result<uint32_t> Submit(wire::JobSpec spec, const Caller& who) {
    if (spec.num_tasks() == 0) spec.set_num_tasks(1);
    Result<wire::SubmitJobResponse> r =
        SubmitAs(who, [&](wire::JobSpec& s) { s = std::move(spec); });
    if (!r.ok()) return r.status();
    return r->job_id();
  }
  static wire::JobSpec Spec(const std::string& account = "", const std::string& qos = "",
                            const std::string& partition = "") {
    wire::JobSpec s;
    s.set_account(account);
    s.set_qos(qos);
    s.set_partition(partition);
    return s;
  }
  std::string StateOf(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }

  wire::PolicyState policy_;
  std::vector<wire::StateRecord> log_;
  Caller carol_{1002, 1002, "carol", "carol", false};
};

TEST_F(PolicyHooksTest, NothingEnforcedBeforeAPolicyIsKnown) {
  EXPECT_TRUE(Submit(Spec("anything"), carol_).ok());
}

TEST_F(PolicyHooksTest, AssociationsAtSubmit) {
  AddDefaults();
  Add("account", "chemistry");
  Add("qos", "gpu");
  ASSERT_TRUE(Apply());
  // No -A: the user's default account.
  Result<uint32_t> id = Submit(Spec(), alice_);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(Job(*id).spec().account(), "physics");
  // An account the user has no association with, or no user at all.
  Result<uint32_t> other = Submit(Spec("chemistry"), alice_);
  EXPECT_EQ(other.status().message(), "Invalid account or account/partition combination specified");
  EXPECT_FALSE(Submit(Spec("nosuch"), alice_).ok());
  EXPECT_EQ(Submit(Spec(), carol_).status().message(),
            "Invalid account or account/partition combination specified");
  // QoS must exist in the table.
  EXPECT_TRUE(Submit(Spec("physics", "gpu"), alice_).ok());
  EXPECT_EQ(Submit(Spec("physics", "fast"), alice_).status().message(),
            "Invalid qos specification");
}

TEST_F(PolicyHooksTest, WithoutEnforcementThePolicyOnlyWaits) {
  Load("");
  AddDefaults();
  Apply();
  EXPECT_TRUE(Submit(Spec("chemistry"), carol_).ok());
}

TEST_F(PolicyHooksTest, PartitionAccessLists) {
  Load("AccountingStorageEnforce=associations\n",
       "AllowAccounts=physics AllowQos=normal,gpu DenyQos=gpu AllowGroups=alice");
  AddDefaults();
  Add("account", "chemistry");
  Add("user", "carol", {{"DefaultAccount", "chemistry"}});
  Add("qos", "gpu");
  Add("qos", "long");
  Apply();
  EXPECT_TRUE(Submit(Spec("", "", "guarded"), alice_).ok());
  EXPECT_EQ(Submit(Spec("", "", "guarded"), bob_).status().message(),
            "User's group not permitted to use this partition");
  EXPECT_EQ(Submit(Spec("", "long", "guarded"), alice_).status().message(),
            "Invalid qos specification");  // Not in AllowQos
  EXPECT_EQ(Submit(Spec("", "gpu", "guarded"), alice_).status().message(),
            "Invalid qos specification");  // DenyQos
  Load("AccountingStorageEnforce=associations\n", "AllowAccounts=physics");
  Apply();
  EXPECT_EQ(Submit(Spec("", "", "guarded"), carol_).status().message(),
            "Invalid account or account/partition combination specified");
  EXPECT_TRUE(Submit(Spec("", "", "batch"), carol_).ok());
  Load("AccountingStorageEnforce=associations\n", "DenyAccounts=chemistry");
  Apply();
  EXPECT_FALSE(Submit(Spec("", "", "guarded"), carol_).ok());
  EXPECT_TRUE(Submit(Spec("", "", "guarded"), alice_).ok());
}

TEST_F(PolicyHooksTest, SubmitLimitsAndDenyOnLimit) {
  AddDefaults();
  Add("qos", "small", {{"MaxSubmitJobsPerUser", "2"}});
  Add("qos", "strict", {{"MaxWall", "30"}, {"Flags", "DenyOnLimit"}});
  Apply();
  EXPECT_TRUE(Submit(Spec("", "small"), alice_).ok());
  EXPECT_TRUE(Submit(Spec("", "small"), alice_).ok());
  EXPECT_EQ(Submit(Spec("", "small"), alice_).status().message(), sched::kPolicyViolation);
  EXPECT_TRUE(Submit(Spec("", "small"), bob_).ok());
  wire::JobSpec array = Spec("", "small");
  array.set_array("0-1");
  EXPECT_FALSE(Submit(array, bob_).ok());  // 1 + 2 tasks > 2

  wire::JobSpec long_job = Spec("", "strict");
  long_job.set_time_limit_s(3600);
  EXPECT_EQ(Submit(long_job, alice_).status().message(), sched::kPolicyViolation);
  long_job.set_time_limit_s(600);
  EXPECT_TRUE(Submit(long_job, alice_).ok());
}

TEST_F(PolicyHooksTest, LimitsHoldJobsWithReasonsWithoutBlockingOthers) {
  AddDefaults();
  Add("qos", "one", {{"MaxJobsPerUser", "1"}, {"MaxWall", "1:00:00"}});
  Apply();
  uint32_t a1 = Submit(Spec("", "one"), alice_).value();
  uint32_t a2 = Submit(Spec("", "one"), alice_).value();
  wire::JobSpec too_long = Spec("", "one");
  too_long.set_time_limit_s(7200);
  uint32_t a3 = Submit(too_long, alice_).value();
  uint32_t b1 = Submit(Spec("", "one"), bob_).value();
  Tick();
  EXPECT_EQ(StateOf(a1), "RUNNING");
  EXPECT_EQ(StateOf(a2), "PENDING");
  EXPECT_EQ(Job(a2).reason(), "QOSMaxJobsPerUserLimit");
  EXPECT_EQ(Job(a3).reason(), "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(StateOf(b1), "RUNNING");  // Not blocked by alice's held jobs

  // alice's first job ends: the second may run.
  Effects e;
  ASSERT_TRUE(core_->JobExited(a1, 0, now_, e).ok());
  Tick();
  EXPECT_EQ(StateOf(a2), "RUNNING");
  EXPECT_EQ(StateOf(a3), "PENDING");
}

TEST_F(PolicyHooksTest, GroupTresCountsJobsStartedInTheSamePass) {
  AddDefaults();
  Add("qos", "gpus", {{"GrpTRES", "gres/gpu=2"}});
  Apply();
  wire::JobSpec gpu = Spec("", "gpus");
  gpu.set_gres("gpu:1");
  uint32_t j1 = Submit(gpu, alice_).value();
  uint32_t j2 = Submit(gpu, bob_).value();
  uint32_t j3 = Submit(gpu, alice_).value();
  Tick();
  EXPECT_EQ(StateOf(j1), "RUNNING");
  EXPECT_EQ(StateOf(j2), "RUNNING");
  EXPECT_EQ(StateOf(j3), "PENDING");
  EXPECT_EQ(Job(j3).reason(), "QOSGrpGRES");
}

TEST_F(PolicyHooksTest, AssociationLimitOnAnArrayStartsOnlyWhatItAllows) {
  Add("account", "physics", {{"MaxJobs", "2"}});
  Add("user", "alice", {{"DefaultAccount", "physics"}});
  Apply();
  wire::JobSpec array = Spec();
  array.set_array("0-3");
  uint32_t meta = Submit(array, alice_).value();
  Tick();
  int running = 0;
  core_->PublishJobs();
  for (uint32_t id = meta; id < meta + 4; ++id) {
    const wire::JobRecord* j = core_->FindJob(id);
    if (j != nullptr && j->state() == wire::JOB_STATE_RUNNING) ++running;
  }
  EXPECT_EQ(running, 2);
  EXPECT_EQ(Job(meta).reason(), "AssocMaxJobsLimit");
}

TEST_F(PolicyHooksTest, PolicyIsRecordedOnlyWhenItChangesAndSurvivesARestart) {
  AddDefaults();
  EXPECT_TRUE(Apply());
  EXPECT_FALSE(Apply());  // Same content: no record
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_TRUE(log_[0].has_policy());

  // From the log...
  ControllerCore from_log(config_);
  from_log.Restore(nullptr, log_);
  ASSERT_NE(from_log.policy(), nullptr);
  EXPECT_NE(from_log.policy()->FindUser("alice"), nullptr);
  // ...and from a snapshot, both ways of writing one.
  wire::StateSnapshot snap;
  ASSERT_TRUE(snap.ParseFromString(core_->SerializeSnapshot()));
  ASSERT_TRUE(snap.has_policy());
  ControllerCore from_snapshot(config_);
  from_snapshot.Restore(&snap, {});
  ASSERT_NE(from_snapshot.policy(), nullptr);
  EXPECT_EQ(from_snapshot.policy()->FindUser("bob")->default_account, "physics");
  EXPECT_TRUE(core_->Snapshot().has_policy());

  // The restored controller enforces it.
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_account("chemistry");
  req.mutable_spec()->set_num_tasks(1);
  Effects e;
  EXPECT_FALSE(from_snapshot.Submit(req, alice_, now_, e).ok());
}

TEST_F(PolicyHooksTest, OperatorsMayControlOthersJobs) {
  AddDefaults();
  Add("user", "carol", {{"DefaultAccount", "physics"}, {"AdminLevel", "Operator"}});
  Apply();
  uint32_t id = Submit(Spec(), alice_).value();
  auto cancel = [&](const Caller& who) {
    wire::SignalJobsRequest req;
    req.add_job_ids(std::to_string(id));
    Effects e;
    return core_->SignalJobs(req, who, now_, e);
  };
  wire::SignalJobsResponse by_bob = cancel(bob_);
  ASSERT_EQ(by_bob.errors_size(), 1);
  EXPECT_EQ(StateOf(id), "PENDING");
  wire::SignalJobsResponse by_carol = cancel(carol_);
  EXPECT_EQ(by_carol.errors_size(), 0);
  EXPECT_EQ(StateOf(id), "CANCELLED");
  wire::UpdateNodeRequest drain;
  drain.set_nodes("n1");
  drain.set_state("DRAIN");
  drain.set_reason("maintenance");
  Effects e;
  EXPECT_FALSE(core_->UpdateNodes(drain, bob_, now_, e).ok());
  EXPECT_TRUE(core_->UpdateNodes(drain, carol_, now_, e).ok());
}

TEST_F(PolicyHooksTest, RequestedTresCountsMatchTheRecordedText) {
  wire::JobRecord job;
  job.set_req_nodes(2);
  job.set_alloc_cpus(6);
  job.mutable_spec()->set_partition("batch");
  job.mutable_spec()->set_gpus_per_node("a100:2");
  EXPECT_EQ(RequestedTresCounts(*config_, job).ToString(), RequestedTres(*config_, job));
  EXPECT_EQ(RequestedTresCounts(*config_, job).Get("gres/gpu"), 4u);
  job.mutable_spec()->set_mem_per_node_mb(1500);
  EXPECT_EQ(RequestedTresCounts(*config_, job).ToString(), RequestedTres(*config_, job));
  EXPECT_EQ(RequestedTresCounts(*config_, job).Get("mem"), 3000u);
  // gres not in AccountingStorageTRES is neither recorded nor counted.
  Load("AccountingStorageEnforce=limits\n");
  EXPECT_EQ(TrackedTresCounts(*config_, "cpu=2,gres/gpu=2,gres/nic=1").ToString(),
            "cpu=2,gres/gpu=2");
}

TEST_F(PolicyHooksTest, QosPriorityFeedsTheMultifactorQosFactor) {
  Load(
      "AccountingStorageEnforce=associations\nPriorityType=priority/multifactor\n"
      "PriorityWeightQOS=1000\n");
  AddDefaults();
  Add("qos", "high", {{"Priority", "10"}});
  Add("qos", "low", {{"Priority", "5"}});
  Apply();
  wire::JobSpec held = Spec("", "high");
  held.set_begin_time(kT0 + 3600);  // Stays pending
  uint32_t high = Submit(held, alice_).value();
  held.set_qos("low");
  uint32_t low = Submit(held, alice_).value();
  held.set_qos("");
  uint32_t normal = Submit(held, alice_).value();
  EXPECT_EQ(Job(high).priority(), 1000u);  // 1000 * 10/10
  EXPECT_EQ(Job(low).priority(), 500u);    // 1000 * 5/10
  EXPECT_EQ(Job(normal).priority(), 1u);   // normal has Priority 0; never below 1
}

}  // namespace
}  // namespace rota::ctld
