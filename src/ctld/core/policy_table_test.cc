#include "ctld/core/policy_table.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

void Add(wire::PolicyState& s, const std::string& kind, const std::string& name,
         std::map<std::string, std::string> fields) {
  wire::PolicyEntity* e = s.add_entities();
  e->set_kind(kind);
  e->set_name(name);
  for (auto& [k, v] : fields) (*e->mutable_fields())[k] = v;
}

TEST(EnforcementTest, ImpliesAssociationsAsSlurmDoes) {
  Enforcement none = Enforcement::FromSettings({});
  EXPECT_FALSE(none.any());
  Enforcement limits = Enforcement::FromSettings({"limits"});
  EXPECT_TRUE(limits.associations);
  EXPECT_TRUE(limits.limits);
  EXPECT_FALSE(limits.qos);
  Enforcement qos = Enforcement::FromSettings({"qos"});
  EXPECT_TRUE(qos.associations && qos.qos && !qos.limits);
  Enforcement safe = Enforcement::FromSettings({"safe"});
  EXPECT_TRUE(safe.associations && safe.limits && safe.safe);
  Enforcement all = Enforcement::FromSettings({"all"});
  EXPECT_TRUE(all.associations && all.limits && all.qos && all.safe);
  Enforcement assoc = Enforcement::FromSettings({"associations"});
  EXPECT_TRUE(assoc.associations && !assoc.limits);
}

TEST(PolicyTableTest, ReadsAccountsUsersAndQos) {
  wire::PolicyState s;
  Add(s, "account", "science", {{"Description", "all science"}, {"GrpJobs", "10"}});
  Add(s, "account", "physics", {{"Parent", "science"}, {"MaxWall", "2:00:00"}});
  Add(s, "user", "alice", {{"DefaultAccount", "physics"}, {"AdminLevel", "Operator"}});
  Add(s, "qos", "gpu",
      {{"Priority", "10"},
       {"MaxJobsPerUser", "2"},
       {"MaxTRESPerUser", "gres/gpu=8"},
       {"MaxWall", "1-00:00:00"},
       {"Flags", "DenyOnLimit"},
       {"UsageFactor", "2.5"}});
  auto table = PolicyTable::FromState(s);

  const AccountPolicy* physics = table->FindAccount("physics");
  ASSERT_NE(physics, nullptr);
  EXPECT_EQ(physics->parent, "science");
  EXPECT_EQ(physics->limits.max_wall_s, 7200);
  EXPECT_EQ(table->FindAccount("science")->parent, "root");
  EXPECT_EQ(table->FindAccount("science")->limits.grp_jobs, 10u);
  ASSERT_NE(table->FindAccount("root"), nullptr);  // Always there

  std::vector<const AccountPolicy*> lineage = table->Lineage("physics");
  ASSERT_EQ(lineage.size(), 3u);
  EXPECT_EQ(lineage[0]->name, "physics");
  EXPECT_EQ(lineage[1]->name, "science");
  EXPECT_EQ(lineage[2]->name, "root");
  EXPECT_TRUE(table->Lineage("chemistry").empty());

  const UserPolicy* alice = table->FindUser("alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->default_account, "physics");
  EXPECT_EQ(alice->admin_level, AdminLevel::kOperator);
  EXPECT_TRUE(table->HasAssociation("alice", "physics"));
  EXPECT_FALSE(table->HasAssociation("alice", "science"));
  EXPECT_FALSE(table->HasAssociation("bob", "physics"));

  const QosPolicy* gpu = table->FindQos("gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->priority, 10u);
  EXPECT_EQ(gpu->limits.max_jobs, 2u);
  EXPECT_FALSE(gpu->limits.grp_jobs.has_value());
  EXPECT_EQ(gpu->limits.max_tres_per_user.Get("gres/gpu"), 8u);
  EXPECT_EQ(gpu->limits.max_wall_s, 86400);
  EXPECT_TRUE(gpu->deny_on_limit);
  EXPECT_DOUBLE_EQ(gpu->usage_factor, 2.5);
  EXPECT_EQ(table->FindQos("normal"), nullptr);
  EXPECT_EQ(table->state().entities_size(), 4);
  EXPECT_TRUE(table->has_start_limits());
  EXPECT_EQ(table->MaxQosPriority(), 10u);

  wire::PolicyState submit_only;
  Add(submit_only, "qos", "q", {{"MaxSubmitJobsPerUser", "3"}, {"Priority", "2"}});
  EXPECT_FALSE(PolicyTable::FromState(submit_only)->has_start_limits());
}

TEST(PolicyTableTest, IgnoresValuesThatDoNotParseAndSurvivesCycles) {
  wire::PolicyState s;
  Add(s, "account", "a", {{"Parent", "b"}, {"GrpJobs", "many"}});
  Add(s, "account", "b", {{"Parent", "a"}, {"MaxWall", "UNLIMITED"}});
  Add(s, "qos", "q", {{"GrpTRES", "cpu=oops"}});
  auto table = PolicyTable::FromState(s);
  EXPECT_FALSE(table->FindAccount("a")->limits.grp_jobs.has_value());
  EXPECT_FALSE(table->FindAccount("b")->limits.max_wall_s.has_value());
  EXPECT_TRUE(table->FindQos("q")->limits.grp_tres.empty());
  EXPECT_EQ(table->Lineage("a").size(), 2u);
}

}  // namespace
}  // namespace rota::ctld

namespace rota::ctld {
namespace {

TEST(PolicyTableTest, AssociationPriorityIsInheritedDownTheTree) {
  wire::PolicyState s;
  Add(s, "account", "root", {{"Priority", "5"}});
  Add(s, "account", "science", {{"Priority", "50"}});
  Add(s, "account", "physics", {{"Parent", "science"}});
  Add(s, "account", "chem", {});
  Add(s, "user", "alice", {{"DefaultAccount", "physics"}});
  Add(s, "assoc", "physics|alice", {{"Account", "physics"}, {"User", "alice"}});
  Add(s, "assoc", "chem|alice", {{"Account", "chem"}, {"User", "alice"}, {"Priority", "200"}});
  auto table = PolicyTable::FromState(s);
  EXPECT_EQ(table->AssocPriority("alice", "physics"), 50u);  // science's
  EXPECT_EQ(table->AssocPriority("alice", "chem"), 200u);    // Its own
  EXPECT_EQ(table->AssocPriority("bob", "chem"), 5u);        // root's
  EXPECT_EQ(table->MaxAssocPriority(), 200u);
  EXPECT_EQ(PolicyTable::FromState({})->AssocPriority("alice", "chem"), 0u);
  EXPECT_EQ(PolicyTable::FromState({})->MaxAssocPriority(), 0u);
}

}  // namespace
}  // namespace rota::ctld
