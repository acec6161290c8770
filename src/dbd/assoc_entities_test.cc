// A user in several accounts, as rotadbd keeps it, on both backends: adding
// associations to a user, the default account, per-association settings and
// QoS lists, deleting one association, and the move of an older store's
// user settings to an association.
#include "dbd/assoc_entities.h"

#include <gtest/gtest.h>

#include "dbd/acct_entities.h"
#include "dbd/store_test_support.h"

namespace rota::dbd {
namespace {

wire::AcctEntity Entity(const std::string& kind, const std::string& name,
                        std::map<std::string, std::string> fields = {}) {
  wire::AcctEntity e;
  e.set_kind(kind);
  e.set_name(name);
  for (auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
  return e;
}

class AssocEntitiesTest : public StoreFixture, public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    PrepareDatabase(GetParam());
    store_ = OpenStore();
    ASSERT_NE(store_, nullptr);
    std::vector<wire::AcctEntity> setup = {Entity("account", "a"), Entity("account", "b"),
                                           Entity("account", "c")};
    ASSERT_TRUE(PrepareAdd(setup, *store_).ok());
    ASSERT_TRUE(store_->AddEntities(setup).ok());
    std::vector<wire::AcctEntity> qos = {Entity("qos", "normal"), Entity("qos", "high")};
    ASSERT_TRUE(PrepareAdd(qos, *store_).ok());
    ASSERT_TRUE(store_->AddEntities(qos).ok());
  }
  Status AddUser(const std::string& name, std::map<std::string, std::string> fields) {
    auto entities = PrepareAddUsers({Entity("user", name, std::move(fields))}, *store_);
    if (!entities.ok()) return entities.status();
    return store_->AddEntities(*entities);
  }
  Status Modify(const std::string& user, std::vector<std::string> accounts,
                std::map<std::string, std::string> set) {
    auto entities = PrepareModifyUsers({user}, accounts, set, *store_);
    if (!entities.ok()) return entities.status();
    return store_->ReplaceEntities(*entities);
  }
  // "account:setting" of each association of `user`, by account.
  std::string Assocs(const std::string& user, const std::string& setting = "") {
    std::string out;
    auto all = store_->ListEntities("assoc", {});
    EXPECT_TRUE(all.ok());
    for (const wire::AcctEntity& a : *all) {
      if (a.fields().at("User") != user) continue;
      if (!out.empty()) out += ' ';
      out += a.fields().at("Account");
      if (!setting.empty()) {
        auto it = a.fields().find(setting);
        out += ":" + (it == a.fields().end() ? std::string() : it->second);
      }
    }
    return out;
  }
  std::string UserField(const std::string& user, const std::string& key) {
    auto found = store_->ListEntities("user", {user});
    if (!found.ok() || found->empty()) return "<none>";
    auto it = found->front().fields().find(key);
    return it == found->front().fields().end() ? "<unset>" : it->second;
  }

  std::unique_ptr<AccountingStore> store_;
};

TEST_P(AssocEntitiesTest, AUserGetsAnAssociationPerAccountAndMoreLater) {
  ASSERT_TRUE(AddUser("bob", {{"Account", "a,b"}, {"MaxJobs", "4"}}).ok());
  EXPECT_EQ(UserField("bob", "DefaultAccount"), "a");  // The first account named
  EXPECT_EQ(UserField("bob", "MaxJobs"), "<unset>");   // Limits are the associations'
  EXPECT_EQ(Assocs("bob", "MaxJobs"), "a:4 b:4");
  // Adding the user again with another account adds only that association.
  ASSERT_TRUE(AddUser("bob", {{"account", "c"}, {"DefaultAccount", "c"}}).ok());
  EXPECT_EQ(Assocs("bob"), "a b c");
  EXPECT_EQ(UserField("bob", "DefaultAccount"), "a");
  EXPECT_EQ(AddUser("bob", {{"Account", "a"}}).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(AddUser("bob", {{"Account", "nosuch"}}).code(), StatusCode::kNotFound);
  // DefaultAccount= alone makes that account's association.
  ASSERT_TRUE(AddUser("eve", {{"DefaultAccount", "b"}}).ok());
  EXPECT_EQ(Assocs("eve"), "b");
}

TEST_P(AssocEntitiesTest, DefaultAccountMustBeAnAssociationAndSettingsFollowWhere) {
  ASSERT_TRUE(AddUser("bob", {{"Account", "a,b"}}).ok());
  ASSERT_TRUE(Modify("bob", {}, {{"DefaultAccount", "b"}}).ok());
  EXPECT_EQ(UserField("bob", "DefaultAccount"), "b");
  Status s = Modify("bob", {}, {{"DefaultAccount", "c"}});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "User bob has no association with account c");
  // where Account=a: only that association; without: all of them.
  ASSERT_TRUE(Modify("bob", {"a"}, {{"GrpTRESMins", "cpu=600"}}).ok());
  EXPECT_EQ(Assocs("bob", "GrpTRESMins"), "a:cpu=600 b:");
  ASSERT_TRUE(Modify("bob", {}, {{"MaxWall", "1:00:00"}}).ok());
  EXPECT_EQ(Assocs("bob", "MaxWall"), "a:1:00:00 b:1:00:00");
}

TEST_P(AssocEntitiesTest, QosListsAreCheckedAndEditedWithPlusAndMinus) {
  ASSERT_TRUE(AddUser("bob", {{"Account", "a"}, {"QOS", "normal"}}).ok());
  EXPECT_EQ(Assocs("bob", "QOS"), "a:normal");
  ASSERT_TRUE(Modify("bob", {}, {{"QOS+", "high"}}).ok());
  EXPECT_EQ(Assocs("bob", "QOS"), "a:high,normal");
  ASSERT_TRUE(Modify("bob", {}, {{"QOS-", "normal"}, {"DefaultQOS", "high"}}).ok());
  EXPECT_EQ(Assocs("bob", "QOS"), "a:high");
  EXPECT_EQ(Assocs("bob", "DefaultQOS"), "a:high");
  Status s = Modify("bob", {}, {{"QOS+", "nosuch"}});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "The QOS nosuch doesn't exist");
  // On an account without a list of its own, += is kept as an edit of the
  // inherited list.
  auto accounts = PrepareModify("account", {"b"}, {{"QOS+", "high"}}, *store_);
  ASSERT_TRUE(accounts.ok()) << accounts.status().ToString();
  EXPECT_EQ(accounts->front().fields().at("QOS"), "+high");
}

TEST_P(AssocEntitiesTest, DeletingOneAssociationKeepsTheUserUntilTheLast) {
  ASSERT_TRUE(AddUser("bob", {{"Account", "a,b"}}).ok());
  // The default account's association cannot go while others stay.
  auto refused = PrepareDeleteUsers({"bob"}, {"a"}, *store_);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  auto one = PrepareDeleteUsers({"bob"}, {"b"}, *store_);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->assocs, std::vector<std::string>{AssocName("b", "bob")});
  EXPECT_TRUE(one->users.empty());
  ASSERT_TRUE(store_->DeleteEntities("assoc", one->assocs).ok());
  EXPECT_EQ(Assocs("bob"), "a");
  // An account that still has an association cannot be deleted.
  EXPECT_EQ(CheckDelete("account", {"b"}, *store_).code(), StatusCode::kOk);
  EXPECT_EQ(CheckDelete("account", {"a"}, *store_).code(), StatusCode::kFailedPrecondition);
  // The last association takes the user with it.
  auto last = PrepareDeleteUsers({"bob"}, {"a"}, *store_);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->users, std::vector<std::string>{"bob"});
}

TEST_P(AssocEntitiesTest, AnOlderStoresUserSettingsMoveToTheDefaultAssociation) {
  // As an older rotadbd stored a user: its limits on the user itself.
  ASSERT_TRUE(
      store_
          ->AddEntities({Entity(
              "user", "old", {{"DefaultAccount", "a"}, {"AdminLevel", "None"}, {"MaxJobs", "3"}})})
          .ok());
  ASSERT_TRUE(MigrateUserAssociations(*store_).ok());
  EXPECT_EQ(Assocs("old", "MaxJobs"), "a:3");
  EXPECT_EQ(UserField("old", "MaxJobs"), "<unset>");
  EXPECT_EQ(UserField("old", "AdminLevel"), "None");
  // Running it again changes nothing.
  ASSERT_TRUE(MigrateUserAssociations(*store_).ok());
  EXPECT_EQ(Assocs("old", "MaxJobs"), "a:3");
}

INSTANTIATE_TEST_SUITE_P(Backends, AssocEntitiesTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPgsql), BackendName);

}  // namespace
}  // namespace rota::dbd
