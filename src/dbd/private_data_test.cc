#include "dbd/private_data.h"

#include <gtest/gtest.h>

#include "dbd/sqlite_store.h"
#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

wire::AcctEntity User(const std::string& name, const std::string& level) {
  wire::AcctEntity e;
  e.set_kind("user");
  e.set_name(name);
  (*e.mutable_fields())["AdminLevel"] = level;
  (*e.mutable_fields())["DefaultAccount"] = "root";
  return e;
}

TEST(PrivateDataTest, ReadsTheKeysValues) {
  PrivateData p = PrivateData::From({"usage", "jobs"});
  EXPECT_TRUE(p.jobs);
  EXPECT_FALSE(p.users);
  EXPECT_FALSE(PrivateData::From({}).jobs);
  EXPECT_TRUE(PrivateData::From({"users"}).users);
  EXPECT_TRUE(p.usage);
  EXPECT_FALSE(p.accounts);
  EXPECT_TRUE(PrivateData::From({"accounts"}).accounts);
  EXPECT_FALSE(PrivateData::From({"accounts"}).usage);
}

TEST(PrivateDataTest, UsageNarrowsOnlyTheUsageReports) {
  EXPECT_FALSE(PrivateData::From({"usage"}).OwnJobsOnly(false));  // sacct
  EXPECT_TRUE(PrivateData::From({"usage"}).OwnJobsOnly(true));    // sreport user topusage
  EXPECT_TRUE(PrivateData::From({"jobs"}).OwnJobsOnly(false));
  EXPECT_TRUE(PrivateData::From({"jobs"}).OwnJobsOnly(true));
  EXPECT_FALSE(PrivateData::From({"users", "accounts"}).OwnJobsOnly(true));
}

TEST(PrivateDataTest, RootSlurmUserAndOperatorsSeeEverything) {
  testing::TempDir dir;
  auto store = SqliteStore::Open((dir.path() / "acct.sqlite").string());
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)
                  ->AddEntities(
                      {User("op", "Operator"), User("boss", "Administrator"), User("ann", "None")})
                  .ok());
  EXPECT_TRUE(SeesEverything(0, "root", 500, **store));
  EXPECT_TRUE(SeesEverything(500, "slurm", 500, **store));
  EXPECT_TRUE(SeesEverything(1001, "op", 500, **store));
  EXPECT_TRUE(SeesEverything(1002, "boss", 500, **store));
  EXPECT_FALSE(SeesEverything(1003, "ann", 500, **store));
  EXPECT_FALSE(SeesEverything(1004, "stranger", 500, **store));
  EXPECT_FALSE(SeesEverything(1005, "", 500, **store));
}

TEST(PrivateDataTest, KeepsOnlyTheCallersJobs) {
  std::vector<wire::AccountingJob> jobs(3);
  jobs[0].set_job_id(1);
  jobs[0].set_uid(1001);
  jobs[1].set_job_id(2);
  jobs[1].set_uid(1002);
  jobs[2].set_job_id(3);
  jobs[2].set_uid(1001);
  KeepOwnJobs(1001, jobs);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].job_id(), 1u);
  EXPECT_EQ(jobs[1].job_id(), 3u);
}

TEST(PrivateDataTest, OnlyTheOwnerReadsAJobsScriptAndEnvironment) {
  std::vector<wire::AccountingJob> jobs(2);
  for (wire::AccountingJob& j : jobs) {
    j.set_script("#!/bin/sh\n");
    j.set_environment("TOKEN=secret\n");
  }
  jobs[0].set_uid(1001);
  jobs[1].set_uid(1002);
  KeepOwnJobTexts(1001, jobs);
  ASSERT_EQ(jobs.size(), 2u) << "the jobs stay; only their texts go";
  EXPECT_EQ(jobs[0].script(), "#!/bin/sh\n");
  EXPECT_EQ(jobs[0].environment(), "TOKEN=secret\n");
  EXPECT_EQ(jobs[1].script(), "");
  EXPECT_EQ(jobs[1].environment(), "");
}

wire::AcctEntity Entity(const std::string& kind, const std::string& name) {
  wire::AcctEntity e;
  e.set_kind(kind);
  e.set_name(name);
  return e;
}

wire::AcctEntity Assoc(const std::string& account, const std::string& user) {
  wire::AcctEntity e = Entity("assoc", user.empty() ? account : account + "|" + user);
  (*e.mutable_fields())["Account"] = account;
  if (!user.empty()) (*e.mutable_fields())["User"] = user;
  return e;
}

std::vector<std::string> Names(const std::vector<wire::AcctEntity>& entities) {
  std::vector<std::string> out;
  for (const wire::AcctEntity& e : entities) out.push_back(e.name());
  return out;
}

class KeepOwnAccountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::Open((dir_.path() / "acct.sqlite").string());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(opened).value();
    ASSERT_TRUE(store_
                    ->AddEntities({Entity("account", "physics"), Entity("account", "chem"),
                                   Entity("account", "bio"), User("ann", "None"),
                                   User("bob", "None"), Assoc("physics", "ann"),
                                   Assoc("chem", "ann"), Assoc("chem", "bob"), Assoc("bio", "bob")})
                    .ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(KeepOwnAccountsTest, AccountsAreThoseTheUserHasAnAssociationWith) {
  std::vector<wire::AcctEntity> accounts = {Entity("account", "bio"), Entity("account", "chem"),
                                            Entity("account", "physics")};
  ASSERT_TRUE(KeepOwnAccounts("account", "ann", *store_, accounts).ok());
  EXPECT_EQ(Names(accounts), (std::vector<std::string>{"chem", "physics"}));
}

TEST_F(KeepOwnAccountsTest, AssociationsOnlyUnderTheUsersAccounts) {
  std::vector<wire::AcctEntity> assocs = {Assoc("bio", ""), Assoc("bio", "bob"),
                                          Assoc("chem", "ann"), Assoc("chem", "bob"),
                                          Assoc("physics", "ann")};
  ASSERT_TRUE(KeepOwnAccounts("assoc", "ann", *store_, assocs).ok());
  EXPECT_EQ(Names(assocs), (std::vector<std::string>{"chem|ann", "chem|bob", "physics|ann"}));
}

TEST_F(KeepOwnAccountsTest, AStrangerSeesNoAccountAndOtherKindsStay) {
  std::vector<wire::AcctEntity> accounts = {Entity("account", "chem")};
  ASSERT_TRUE(KeepOwnAccounts("account", "", *store_, accounts).ok());
  EXPECT_TRUE(accounts.empty());
  std::vector<wire::AcctEntity> users = {User("bob", "None")};
  ASSERT_TRUE(KeepOwnAccounts("user", "ann", *store_, users).ok());
  EXPECT_EQ(users.size(), 1u);
}

}  // namespace
}  // namespace rota::dbd
