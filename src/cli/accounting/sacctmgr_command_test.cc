#include "cli/accounting/sacctmgr_command.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

TEST(SacctmgrCommandTest, ParsesAddShowAndDelete) {
  auto add =
      ParseSacctmgrCommand({"add", "user", "alice,bob", "Account=physics", "AdminLevel=Operator"});
  ASSERT_TRUE(add.ok()) << add.status().ToString();
  EXPECT_EQ(add->verb, SacctmgrVerb::kAdd);
  EXPECT_EQ(add->kind, "user");
  EXPECT_EQ(add->names, (std::vector<std::string>{"alice", "bob"}));
  auto entities = EntitiesToAdd(*add);
  ASSERT_EQ(entities.size(), 2u);
  EXPECT_EQ(entities[1].name(), "bob");
  EXPECT_EQ(entities[1].fields().at("DefaultAccount"), "physics");
  EXPECT_EQ(entities[1].fields().at("AdminLevel"), "Operator");

  auto show = ParseSacctmgrCommand({"list", "qos", "where", "name=high", "format=Name,MaxWall"});
  ASSERT_TRUE(show.ok());
  EXPECT_EQ(show->verb, SacctmgrVerb::kShow);
  EXPECT_EQ(show->names, (std::vector<std::string>{"high"}));
  EXPECT_EQ(show->format, "Name,MaxWall");

  auto del = ParseSacctmgrCommand({"remove", "account", "where", "Name=chem"});
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->verb, SacctmgrVerb::kDelete);
  EXPECT_EQ(del->names, (std::vector<std::string>{"chem"}));

  EXPECT_FALSE(ParseSacctmgrCommand({"delete", "account"}).ok());  // Names nothing
  EXPECT_FALSE(ParseSacctmgrCommand({"frobnicate", "account", "x"}).ok());
  EXPECT_FALSE(ParseSacctmgrCommand({"show", "partition"}).ok());
}

TEST(SacctmgrCommandTest, ParsesAndRendersClusters) {
  auto add = ParseSacctmgrCommand({"add", "cluster", "snow"});
  ASSERT_TRUE(add.ok()) << add.status().ToString();
  EXPECT_EQ(add->kind, "cluster");
  EXPECT_EQ(add->names, (std::vector<std::string>{"snow"}));
  EXPECT_EQ(DescribeAdd(*add), " Adding Cluster(s)\n  snow\n");
  auto del = ParseSacctmgrCommand({"delete", "clusters", "where", "cluster=snow"});
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->names, (std::vector<std::string>{"snow"}));
  EXPECT_FALSE(ParseSacctmgrCommand({"modify", "cluster", "snow", "set", "GrpJobs=1"}).ok());

  wire::AcctEntity anchor;
  anchor.set_kind("cluster");
  anchor.set_name("anchor");
  for (auto [k, v] : {std::pair{"ControlHost", "127.0.0.1"},
                      {"ControlPort", "6817"},
                      {"RPC", "9728"},
                      {"Fairshare", "1"},
                      {"QOS", "normal"}}) {
    (*anchor.mutable_fields())[k] = v;
  }
  auto text = RenderEntities("cluster", "", SacctLayout::kAligned, false, {anchor});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(
      *text,
      "   Cluster     ControlHost  ControlPort   RPC     Share GrpJobs       GrpTRES "
      "GrpSubmit MaxJobs       MaxTRES MaxSubmit     MaxWall                  QOS   Def QOS \n"
      "---------- --------------- ------------ ----- --------- ------- ------------- "
      "--------- ------- ------------- --------- ----------- -------------------- --------- \n"
      "    anchor       127.0.0.1         6817  9728         1 " +
          std::string(76 + 14, ' ') + "normal " + std::string(9, ' ') + " \n");
  text = RenderEntities("cluster", "Cluster,QOS", SacctLayout::kParsable2, false, {anchor});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "Cluster|QOS\nanchor|normal\n");
}

TEST(SacctmgrCommandTest, ParsesModify) {
  auto modify = ParseSacctmgrCommand(
      {"modify", "account", "where", "name=physics,chem", "set", "GrpJobs=4", "MaxWall="});
  ASSERT_TRUE(modify.ok()) << modify.status().ToString();
  EXPECT_EQ(modify->verb, SacctmgrVerb::kModify);
  EXPECT_EQ(modify->names, (std::vector<std::string>{"physics", "chem"}));
  wire::ModifyEntitiesRequest req = ModifyRequest(*modify);
  EXPECT_EQ(req.kind(), "account");
  EXPECT_EQ(req.names_size(), 2);
  EXPECT_EQ(req.set().at("GrpJobs"), "4");
  EXPECT_EQ(req.set().at("MaxWall"), "");  // Cleared

  auto bare = ParseSacctmgrCommand({"update", "qos", "gpu", "set", "MaxJobsPerUser=2"});
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->names, (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(bare->settings.size(), 1u);
  EXPECT_FALSE(ParseSacctmgrCommand({"modify", "qos", "gpu"}).ok());  // Nothing to set
  EXPECT_FALSE(ParseSacctmgrCommand({"modify", "qos", "set", "Priority=1"}).ok());  // No name
}

TEST(SacctmgrCommandTest, RendersEntities) {
  wire::AcctEntity phys;
  phys.set_kind("account");
  phys.set_name("physics");
  (*phys.mutable_fields())["Description"] = "physics department";
  (*phys.mutable_fields())["Organization"] = "science";
  auto text = RenderEntities("account", "", SacctLayout::kAligned, false, {phys});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "   Account                Descr                  Org \n"
            "---------- -------------------- -------------------- \n"
            "   physics   physics department              science \n");
  text = RenderEntities("account", "account,org%5", SacctLayout::kParsable2, true, {phys});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "physics|science\n");
  EXPECT_FALSE(RenderEntities("account", "Bogus", SacctLayout::kParsable2, true, {}).ok());
}

}  // namespace
}  // namespace rota::cli
