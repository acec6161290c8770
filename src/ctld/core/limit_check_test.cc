#include "sched/limit_check.h"

#include <gtest/gtest.h>

#include "ctld/core/policy_entity_for_test.h"
#include "ctld/core/policy_table.h"

namespace rota::ctld {
namespace {

class LimitCheckTest : public ::testing::Test {
 protected:
  void Add(const std::string& kind, const std::string& name,
           std::map<std::string, std::string> fields) {
    testing::AddPolicyEntity(state_, kind, name, fields);
  }
  std::shared_ptr<const PolicyTable> Table() { return PolicyTable::FromState(state_); }

  static sched::JobDemand Job(const std::string& user, const std::string& qos,
                              const std::string& tres, int64_t time_limit_s = 3600,
                              const std::string& account = "physics") {
    sched::JobDemand d;
    d.user = user;
    d.account = account;
    d.qos = qos;
    d.tres = TresCounts::Parse(tres).value();
    d.time_limit_s = time_limit_s;
    return d;
  }

  // `n` running jobs of `held`'s shape, then the reason for `next`.
  std::string ReasonAfter(const sched::JobDemand& held, uint32_t n, const sched::JobDemand& next) {
    sched::LimitUsage usage(Table());
    usage.Add(held, n);
    return sched::StartLimitReason(usage, next).text();
  }

  wire::PolicyState state_;
};

TEST_F(LimitCheckTest, NoLimitsNoReason) {
  Add("account", "physics", {});
  Add("qos", "normal", {});
  EXPECT_EQ(ReasonAfter(Job("alice", "normal", "cpu=4"), 100, Job("alice", "normal", "cpu=4")), "");
  // A QoS the table does not know carries no limits.
  EXPECT_EQ(ReasonAfter(Job("alice", "x", "cpu=4"), 100, Job("alice", "x", "cpu=4")), "");
}

TEST_F(LimitCheckTest, QosJobCounts) {
  Add("qos", "q", {{"MaxJobsPerUser", "2"}, {"GrpJobs", "3"}});
  const sched::JobDemand alice = Job("alice", "q", "cpu=1");
  const sched::JobDemand bob = Job("bob", "q", "cpu=1");
  EXPECT_EQ(ReasonAfter(alice, 1, alice), "");
  EXPECT_EQ(ReasonAfter(alice, 2, alice), "QOSMaxJobsPerUserLimit");
  EXPECT_EQ(ReasonAfter(alice, 2, bob), "");  // Per user
  sched::LimitUsage usage(Table());
  usage.Add(alice, 2);
  usage.Add(bob, 1);
  EXPECT_EQ(sched::StartLimitReason(usage, Job("carol", "q", "cpu=1")).text(), "QOSGrpJobsLimit");
}

TEST_F(LimitCheckTest, AHitCarriesWhoHoldsTheLimitAndItsNumbers) {
  Add("account", "root", {});
  Add("account", "physics", {{"Parent", "root"}, {"GrpTRES", "gres/gpu=8"}});
  Add("qos", "q", {{"MaxJobsPerUser", "3"}, {"MaxWall", "2:00:00"}});
  sched::LimitUsage usage(Table());
  usage.Add(Job("alice", "q", "cpu=1,gres/gpu=3"), 2);
  std::optional<sched::LimitHit> hit =
      sched::StartLimitHit(usage, Job("bob", "q", "cpu=1,gres/gpu=4"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->reason.text(), "AssocGrpGRES");
  EXPECT_EQ(hit->holder, "account physics");
  EXPECT_EQ(hit->limit, "GrpTRES");
  EXPECT_EQ(hit->tres, "gres/gpu");
  EXPECT_EQ(hit->used, 6);
  EXPECT_EQ(hit->asked, 4);
  EXPECT_EQ(hit->max, 8);

  usage.Add(Job("alice", "q", "cpu=1"), 1);
  hit = sched::StartLimitHit(usage, Job("alice", "q", "cpu=1"));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->reason.text(), "QOSMaxJobsPerUserLimit");
  EXPECT_EQ(hit->holder, "user alice in QOS q");
  EXPECT_EQ(hit->used, 3);
  EXPECT_EQ(hit->max, 3);

  hit = sched::StartLimitHit(usage, Job("bob", "q", "cpu=1", 3 * 3600));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->limit, "MaxWall");
  EXPECT_EQ(hit->asked, 180);  // Minutes
  EXPECT_EQ(hit->max, 120);
  EXPECT_FALSE(sched::StartLimitHit(usage, Job("bob", "q", "cpu=1,gres/gpu=2")).has_value());
}

TEST_F(LimitCheckTest, QosMaxWall) {
  Add("qos", "q", {{"MaxWall", "1:00:00"}});
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "cpu=1", 3600)), "");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "cpu=1", 3601)), "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "cpu=1", -1)), "QOSMaxWallDurationPerJobLimit");
}

TEST_F(LimitCheckTest, QosPerJobTres) {
  Add("qos", "q", {{"MaxTRESPerJob", "cpu=8,gres/gpu=2,mem=4G,node=1"}});
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "cpu=8,gres/gpu=2,mem=4G,node=1")), "");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "cpu=9")), "QOSMaxCpuPerJobLimit");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "gres/gpu=3")), "QOSMaxGRESPerJob");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "mem=4097M")), "QOSMaxMemoryPerJob");
  EXPECT_EQ(ReasonAfter({}, 0, Job("a", "q", "node=2")), "QOSMaxNodePerJobLimit");
}

TEST_F(LimitCheckTest, QosPerUserTresCountsRunningJobs) {
  Add("qos", "q", {{"MaxTRESPerUser", "cpu=8,gres/gpu=4"}});
  const sched::JobDemand two_gpus = Job("alice", "q", "cpu=2,gres/gpu=2");
  EXPECT_EQ(ReasonAfter(two_gpus, 1, two_gpus), "");                       // 2 + 2 = 4
  EXPECT_EQ(ReasonAfter(two_gpus, 2, two_gpus), "QOSMaxGRESPerUser");      // 4 + 2 > 4
  EXPECT_EQ(ReasonAfter(two_gpus, 2, Job("bob", "q", "gres/gpu=2")), "");  // Not bob's
  const sched::JobDemand cpus = Job("alice", "q", "cpu=6");
  EXPECT_EQ(ReasonAfter(cpus, 1, Job("alice", "q", "cpu=3")), "QOSMaxCpuPerUserLimit");
}

TEST_F(LimitCheckTest, QosGroupTres) {
  Add("qos", "q", {{"GrpTRES", "cpu=10,gres/gpu=4,mem=8G,node=3"}});
  EXPECT_EQ(ReasonAfter(Job("a", "q", "cpu=5"), 2, Job("b", "q", "cpu=1")), "QOSGrpCpuLimit");
  EXPECT_EQ(ReasonAfter(Job("a", "q", "gres/gpu=3"), 1, Job("b", "q", "gres/gpu=1")), "");
  EXPECT_EQ(ReasonAfter(Job("a", "q", "gres/gpu=3"), 1, Job("b", "q", "gres/gpu=2")), "QOSGrpGRES");
  EXPECT_EQ(ReasonAfter(Job("a", "q", "mem=6G"), 1, Job("b", "q", "mem=3G")), "QOSGrpMemLimit");
  EXPECT_EQ(ReasonAfter(Job("a", "q", "node=2"), 1, Job("b", "q", "node=2")), "QOSGrpNodeLimit");
}

TEST_F(LimitCheckTest, AssociationLimitsOnUsersAndAccounts) {
  Add("account", "science", {{"GrpJobs", "3"}, {"GrpTRES", "gres/gpu=4"}});
  Add("account", "physics", {{"Parent", "science"}, {"MaxJobs", "2"}, {"MaxWall", "30"}});
  Add("account", "chemistry", {{"Parent", "science"}});
  Add("user", "alice", {{"DefaultAccount", "physics"}});
  Add("user", "bob", {{"DefaultAccount", "physics"}, {"MaxJobs", "5"}, {"GrpTRES", "cpu=4"}});
  Add("user", "carol", {{"DefaultAccount", "chemistry"}});
  const sched::JobDemand alice = Job("alice", "", "cpu=1", 600);
  // MaxWall inherited from the account: 30 minutes.
  EXPECT_EQ(ReasonAfter({}, 0, Job("alice", "", "cpu=1", 1801)), "AssocMaxWallDurationPerJobLimit");
  // MaxJobs inherited from physics (2) for alice; bob's own (5) wins for him.
  EXPECT_EQ(ReasonAfter(alice, 2, alice), "AssocMaxJobsLimit");
  EXPECT_EQ(ReasonAfter(Job("bob", "", "cpu=1", 600), 2, Job("bob", "", "cpu=1", 600)), "");
  // bob's own GrpTRES.
  EXPECT_EQ(ReasonAfter(Job("bob", "", "cpu=3", 600), 1, Job("bob", "", "cpu=2", 600)),
            "AssocGrpCpuLimit");
  // science's GrpJobs counts physics' and chemistry's jobs together.
  sched::LimitUsage usage(Table());
  usage.Add(alice, 2);
  usage.Add(Job("carol", "", "cpu=1", 600, "chemistry"), 1);
  EXPECT_EQ(sched::StartLimitReason(usage, Job("carol", "", "cpu=1", 600, "chemistry")).text(),
            "AssocGrpJobsLimit");
  // science's GrpTRES on GPUs.
  EXPECT_EQ(ReasonAfter(Job("alice", "", "gres/gpu=3", 600), 1,
                        Job("carol", "", "gres/gpu=2", 600, "chemistry")),
            "AssocGrpGRES");
}

TEST_F(LimitCheckTest, QosLimitsComeBeforeAssociationLimits) {
  Add("account", "physics", {{"MaxJobs", "1"}});
  Add("user", "alice", {{"DefaultAccount", "physics"}});
  Add("qos", "q", {{"MaxJobsPerUser", "1"}});
  const sched::JobDemand alice = Job("alice", "q", "cpu=1");
  EXPECT_EQ(ReasonAfter(alice, 1, alice), "QOSMaxJobsPerUserLimit");
}

TEST_F(LimitCheckTest, SubmitLimits) {
  Add("account", "physics", {{"MaxSubmitJobs", "4"}});
  Add("user", "alice", {{"DefaultAccount", "physics"}});
  Add("qos", "q", {{"MaxSubmitJobsPerUser", "2"}, {"GrpSubmitJobs", "3"}});
  Add("qos", "r", {});
  auto table = Table();
  const sched::JobDemand alice = Job("alice", "q", "cpu=1");
  EXPECT_TRUE(sched::HasSubmitLimits(*table, alice));
  sched::LimitUsage active(table);
  EXPECT_TRUE(sched::CheckSubmitLimits(active, alice, 2).ok());
  Status over = sched::CheckSubmitLimits(active, alice, 3);  // An array of three
  EXPECT_EQ(over.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(over.message(), sched::kPolicyViolation);
  active.Add(alice, 2);
  EXPECT_FALSE(sched::CheckSubmitLimits(active, alice, 1).ok());
  EXPECT_TRUE(sched::CheckSubmitLimits(active, Job("bob", "q", "cpu=1"), 1).ok());
  EXPECT_FALSE(
      sched::CheckSubmitLimits(active, Job("bob", "q", "cpu=1"), 2).ok());  // GrpSubmitJobs
  // The account's MaxSubmitJobs (4) across QoS.
  const sched::JobDemand other_qos = Job("alice", "r", "cpu=1");
  EXPECT_TRUE(sched::CheckSubmitLimits(active, other_qos, 2).ok());
  EXPECT_FALSE(sched::CheckSubmitLimits(active, other_qos, 3).ok());
  EXPECT_FALSE(sched::HasSubmitLimits(*table, Job("bob", "r", "cpu=1", 60, "chemistry")));
}

TEST_F(LimitCheckTest, DenyOnLimitRefusesWhatCouldNeverStart) {
  Add("qos", "strict",
      {{"MaxWall", "1:00:00"}, {"MaxTRESPerJob", "gres/gpu=2"}, {"Flags", "DenyOnLimit"}});
  Add("qos", "lenient", {{"MaxWall", "1:00:00"}, {"MaxTRESPerJob", "gres/gpu=2"}});
  sched::LimitUsage active(Table());
  EXPECT_TRUE(sched::CheckSubmitLimits(active, Job("a", "strict", "gres/gpu=2", 3600), 1).ok());
  EXPECT_FALSE(sched::CheckSubmitLimits(active, Job("a", "strict", "gres/gpu=2", 3601), 1).ok());
  EXPECT_FALSE(sched::CheckSubmitLimits(active, Job("a", "strict", "gres/gpu=3", 60), 1).ok());
  // A job bigger than the per-user or group limit could never start either.
  Add("qos", "capped",
      {{"MaxTRESPerUser", "cpu=4"}, {"GrpTRES", "gres/gpu=4"}, {"Flags", "DenyOnLimit"}});
  sched::LimitUsage with_capped(Table());
  EXPECT_TRUE(
      sched::CheckSubmitLimits(with_capped, Job("a", "capped", "cpu=4,gres/gpu=4"), 1).ok());
  EXPECT_FALSE(sched::CheckSubmitLimits(with_capped, Job("a", "capped", "cpu=5"), 1).ok());
  EXPECT_FALSE(sched::CheckSubmitLimits(with_capped, Job("a", "capped", "gres/gpu=5"), 1).ok());
  // Without the flag the job is queued and waits with a reason.
  EXPECT_TRUE(sched::CheckSubmitLimits(active, Job("a", "lenient", "gres/gpu=3", 7200), 1).ok());
}

}  // namespace
}  // namespace rota::ctld

namespace rota::ctld {
namespace {

// GrpTRESRunMins: what running jobs have left of their time limits, plus the
// new job's whole time limit, against the limit in TRES-minutes.
TEST_F(LimitCheckTest, GrpTresRunMinsCountsWhatRunningJobsHaveLeft) {
  Add("account", "physics", {});
  Add("qos", "q", {{"GrpTRESRunMins", "cpu=600,gres/gpu=120"}});
  // 4 CPUs with 60 of 120 minutes left: 240 CPU-minutes held.
  sched::JobDemand running = Job("alice", "q", "cpu=4", 7200);
  running.remaining_s = 3600;
  // 4 CPUs for 90 minutes: 360, 600 in all, not past the limit.
  EXPECT_EQ(ReasonAfter(running, 1, Job("bob", "q", "cpu=4", 5400)), "");
  // One more minute is.
  EXPECT_EQ(ReasonAfter(running, 1, Job("bob", "q", "cpu=4", 5460)), "QOSGrpCPURunMinutesLimit");
  // As time passes, held minutes shrink: with 30 minutes left, 120 held.
  running.remaining_s = 1800;
  EXPECT_EQ(ReasonAfter(running, 1, Job("bob", "q", "cpu=4", 7200)), "");
  // GRES have their own reason; a job asking for none is not held by it.
  sched::JobDemand gpus = Job("alice", "q", "cpu=1,gres/gpu=2", 3600);
  EXPECT_EQ(ReasonAfter(gpus, 1, Job("bob", "q", "cpu=1,gres/gpu=1", 60)), "QOSGrpGRESRunMinutes");
  EXPECT_EQ(ReasonAfter(gpus, 1, Job("bob", "q", "cpu=1", 60)), "");
  // No time limit: unbounded, past any limit.
  EXPECT_EQ(ReasonAfter(gpus, 0, Job("bob", "q", "cpu=1", -1)), "QOSGrpCPURunMinutesLimit");
}

TEST_F(LimitCheckTest, GrpTresRunMinsOnAssociationsAndAccounts) {
  Add("account", "science", {{"GrpTRESRunMins", "mem=1000"}});
  Add("account", "physics", {{"Parent", "science"}});
  Add("user", "alice", {{"DefaultAccount", "physics"}});
  Add("user", "bob", {{"DefaultAccount", "physics"}});
  Add("assoc", "physics|alice",
      {{"Account", "physics"}, {"User", "alice"}, {"GrpTRESRunMins", "cpu=100,node=10"}});
  Add("assoc", "physics|bob", {{"Account", "physics"}, {"User", "bob"}});
  // The association's own: 2 CPUs for 60 minutes is 120 > 100.
  EXPECT_EQ(ReasonAfter(Job("alice", "", "cpu=1"), 0, Job("alice", "", "cpu=2", 3600)),
            "AssocGrpCPURunMinutesLimit");
  EXPECT_EQ(ReasonAfter(Job("alice", "", "cpu=1"), 0, Job("alice", "", "node=1", 1200)),
            "AssocGrpNodeRunMinutes");
  // bob's association sets none; the account above counts everyone's memory.
  sched::JobDemand held = Job("alice", "", "mem=10", 3000);  // 500 MB-minutes
  EXPECT_EQ(ReasonAfter(held, 1, Job("bob", "", "mem=10", 3000)), "");
  EXPECT_EQ(ReasonAfter(held, 1, Job("bob", "", "mem=10", 3060)), "AssocGrpMemRunMinutes");
}

}  // namespace
}  // namespace rota::ctld
