#include "cli/accounting/sacctmgr_assoc.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::AcctEntity Entity(const std::string& kind, const std::string& name,
                        std::map<std::string, std::string> fields = {}) {
  wire::AcctEntity e;
  e.set_kind(kind);
  e.set_name(name);
  for (auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
  return e;
}

TEST(SacctmgrAssocTest, ParsesWhereAccountWithAssocAndQosEdits) {
  auto del = ParseSacctmgrCommand({"delete", "user", "bob", "where", "account=a,b"});
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->names, (std::vector<std::string>{"bob"}));
  EXPECT_EQ(del->accounts, (std::vector<std::string>{"a", "b"}));
  auto modify = ParseSacctmgrCommand(
      {"modify", "user", "where", "name=bob", "account=a", "set", "QOS+=high", "DefaultQOS=high"});
  ASSERT_TRUE(modify.ok()) << modify.status().ToString();
  wire::ModifyEntitiesRequest req = ModifyRequest(*modify);
  EXPECT_EQ(req.accounts_size(), 1);
  EXPECT_EQ(req.set().at("QOS+"), "high");
  auto show = ParseSacctmgrCommand({"show", "assoc", "where", "user=bob", "format=Account,User"});
  ASSERT_TRUE(show.ok());
  EXPECT_EQ(show->kind, "assoc");
  EXPECT_EQ(show->users, (std::vector<std::string>{"bob"}));
  auto with = ParseSacctmgrCommand({"show", "user", "bob", "withassoc"});
  ASSERT_TRUE(with.ok());
  EXPECT_TRUE(with->with_assoc);
  EXPECT_EQ(with->names, (std::vector<std::string>{"bob"}));
  EXPECT_FALSE(ParseSacctmgrCommand({"delete", "assoc", "bob"}).ok());
  // add user keeps Account= for rotadbd (the associations) and names the default.
  auto add = ParseSacctmgrCommand({"add", "user", "bob", "Account=a,b"});
  ASSERT_TRUE(add.ok());
  wire::AcctEntity bob = EntitiesToAdd(*add).front();
  EXPECT_EQ(bob.fields().at("Account"), "a,b");
  EXPECT_EQ(bob.fields().at("DefaultAccount"), "a");
}

TEST(SacctmgrAssocTest, ListsTheTreeWithInheritedQos) {
  AssocData data;
  data.cluster = "c1";
  data.accounts = {Entity("account", "a", {{"Parent", "root"}, {"QOS", "high,normal"}}),
                   Entity("account", "sub", {{"Parent", "a"}}),
                   Entity("account", "b", {{"Parent", "root"}})};
  data.users = {Entity("user", "bob", {{"DefaultAccount", "a"}, {"AdminLevel", "None"}})};
  data.assocs = {
      Entity("assoc", "a|bob", {{"Account", "a"}, {"User", "bob"}, {"QOS", "-high"}}),
      Entity("assoc", "sub|bob", {{"Account", "sub"}, {"User", "bob"}, {"MaxJobs", "3"}}),
      Entity("assoc", "b|bob", {{"Account", "b"}, {"User", "bob"}, {"DefaultQOS", "low"}})};
  SacctmgrCommand all;
  all.kind = "assoc";
  all.format = "Cluster,Account,User,MaxJobs,QOS,DefQOS";
  auto text = RenderAssociations(all, data, SacctLayout::kParsable2, false);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "Cluster|Account|User|MaxJobs|QOS|Def QOS\n"
            "c1|root||||\n"
            "c1|a|||high,normal|\n"
            "c1|a|bob||normal|\n"
            "c1|sub|||high,normal|\n"
            "c1|sub|bob|3|high,normal|\n"
            "c1|b||||\n"
            "c1|b|bob|||low\n");
  SacctmgrCommand only_b = all;
  only_b.accounts = {"b"};
  only_b.users = {"bob"};
  EXPECT_EQ(RenderAssociations(only_b, data, SacctLayout::kParsable2, true).value(),
            "c1|b|bob|||low\n");

  SacctmgrCommand with;
  with.kind = "user";
  with.with_assoc = true;
  auto users = RenderUsersWithAssocs(with, data, SacctLayout::kAligned, false);
  ASSERT_TRUE(users.ok());
  EXPECT_EQ(*users,
            "      User   Def Acct     Admin    Cluster    Account  Partition     Share "
            "MaxJobs MaxSubmit     MaxWall                  QOS   Def QOS \n"
            "---------- ---------- --------- ---------- ---------- ---------- --------- "
            "------- --------- ----------- -------------------- --------- \n"
            "       bob          a      None         c1          a                    1  "
            "                                           normal           \n"
            "       bob          a      None         c1        sub                    1  "
            "     3                                high,normal           \n"
            "       bob          a      None         c1          b                    1  "
            "                                                        low \n");
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

// rotadbd's root association (account root with QOS=normal, root's own
// association under it) heads the tree; cluster= filters by ClusterName.
TEST(SacctmgrAssocTest, TheStoredRootAccountHeadsTheTree) {
  AssocData data;
  data.cluster = "c1";
  data.accounts = {Entity("account", "root", {{"QOS", "normal"}, {"Priority", "5"}}),
                   Entity("account", "a", {{"Parent", "root"}})};
  data.users = {Entity("user", "root", {{"DefaultAccount", "root"}})};
  data.assocs = {Entity("assoc", "root|root", {{"Account", "root"}, {"User", "root"}}),
                 Entity("assoc", "a|root", {{"Account", "a"}, {"User", "root"}})};
  auto parsed = ParseSacctmgrCommand(
      {"show", "assoc", "where", "cluster=c1", "format=Account,User,Priority,QOS"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(RenderAssociations(*parsed, data, SacctLayout::kParsable2, true).value(),
            "root||5|normal\nroot|root||normal\na|||normal\na|root||normal\n");
  parsed->clusters = {"other"};
  EXPECT_EQ(RenderAssociations(*parsed, data, SacctLayout::kParsable2, true).value(), "");
}

}  // namespace
}  // namespace rota::cli
