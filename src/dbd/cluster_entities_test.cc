// Clusters and the root association as rotadbd keeps them, on a real SQLite
// file.
#include "dbd/cluster_entities.h"

#include <gtest/gtest.h>

#include "dbd/acct_entities.h"
#include "dbd/sqlite_store.h"
#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

class ClusterEntitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SqliteStore::Open((dir_.path() / "acct.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  static wire::AcctEntity Entity(const std::string& kind, const std::string& name,
                                 std::map<std::string, std::string> fields = {}) {
    wire::AcctEntity e;
    e.set_kind(kind);
    e.set_name(name);
    for (auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
    return e;
  }
  std::string Field(const std::string& kind, const std::string& name, const std::string& key) {
    auto found = store_->ListEntities(kind, {name});
    if (!found.ok() || found->empty()) return "<none>";
    auto it = found->front().fields().find(key);
    return it == found->front().fields().end() ? "<unset>" : it->second;
  }
  std::vector<std::string> Names(const std::vector<wire::AcctEntity>& entities) {
    std::vector<std::string> out;
    for (const auto& e : entities) out.push_back(e.name());
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  HomeCluster home_{"anchor", "head", 6817};
};

TEST_F(ClusterEntitiesTest, AFreshStoreGetsSlurmsRootAssociationOnce) {
  ASSERT_TRUE(EnsureRootAssociation(*store_).ok());
  EXPECT_EQ(Field("qos", "normal", "Priority"), "0");
  EXPECT_EQ(Field("account", "root", "QOS"), "normal");
  EXPECT_EQ(Field("account", "root", "Parent"), "<unset>");
  EXPECT_EQ(Field("user", "root", "DefaultAccount"), "root");
  EXPECT_EQ(Field("user", "root", "AdminLevel"), "Administrator");
  EXPECT_EQ(Field("assoc", "root|root", "User"), "root");
  // Idempotent, and what an admin changed stays.
  std::map<std::string, std::string> set{{"GrpJobs", "7"}};
  auto root = PrepareModify("account", {"root"}, set, *store_);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE(store_->ReplaceEntities(*root).ok());
  ASSERT_TRUE(EnsureRootAssociation(*store_).ok());
  EXPECT_EQ(Field("account", "root", "GrpJobs"), "7");
  // Root stays the top: no parent, no deletion.
  EXPECT_FALSE(PrepareModify("account", {"root"}, {{"Parent", "x"}}, *store_).ok());
  EXPECT_EQ(CheckDelete("account", {"root"}, *store_).code(), StatusCode::kFailedPrecondition);
}

TEST_F(ClusterEntitiesTest, AStoreUsedBeforeKeepsEveryQosAllowed) {
  std::vector<wire::AcctEntity> physics{Entity("account", "physics")};
  ASSERT_TRUE(PrepareAdd(physics, *store_).ok());
  ASSERT_TRUE(store_->AddEntities(physics).ok());
  ASSERT_TRUE(EnsureRootAssociation(*store_).ok());
  EXPECT_EQ(Field("account", "root", "Description"), "default root account");
  EXPECT_EQ(Field("account", "root", "QOS"), "<unset>");
}

TEST_F(ClusterEntitiesTest, ClustersAreAddedListedAndDeleted) {
  ASSERT_TRUE(EnsureRootAssociation(*store_).ok());
  auto listed = ListClusters({}, home_, *store_);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(Names(*listed), (std::vector<std::string>{"anchor"}));  // Implicit
  EXPECT_EQ(listed->front().fields().at("ControlHost"), "head");
  EXPECT_EQ(listed->front().fields().at("ControlPort"), "6817");
  EXPECT_EQ(listed->front().fields().at("QOS"), "normal");

  std::vector<wire::AcctEntity> add{Entity("cluster", "snow")};
  ASSERT_TRUE(PrepareAddClusters(add, home_, *store_).ok());
  ASSERT_TRUE(store_->AddEntities(add).ok());
  EXPECT_EQ(PrepareAddClusters(add, home_, *store_).code(), StatusCode::kAlreadyExists);
  std::vector<wire::AcctEntity> again{Entity("cluster", "anchor")};
  EXPECT_EQ(PrepareAddClusters(again, home_, *store_).code(), StatusCode::kAlreadyExists);
  std::vector<wire::AcctEntity> bad{Entity("cluster", "ice", {{"Bogus", "1"}})};
  EXPECT_EQ(PrepareAddClusters(bad, home_, *store_).code(), StatusCode::kInvalidArgument);

  listed = ListClusters({}, home_, *store_);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(Names(*listed), (std::vector<std::string>{"anchor", "snow"}));
  EXPECT_EQ((*listed)[1].fields().at("ControlPort"), "0");
  listed = ListClusters({"snow"}, home_, *store_);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(Names(*listed), (std::vector<std::string>{"snow"}));

  // The home cluster holds the association tree: refused, saying why.
  Status home = CheckDeleteClusters({"anchor"}, home_, *store_);
  EXPECT_EQ(home.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(home.message().find("still has associations"), std::string::npos) << home.message();
  ASSERT_TRUE(CheckDeleteClusters({"snow"}, home_, *store_).ok());
  auto deleted = store_->DeleteEntities("cluster", {"snow"});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, (std::vector<std::string>{"snow"}));
}

TEST_F(ClusterEntitiesTest, PreemptListsTakeAdditionsAndRemovals) {
  std::vector<wire::AcctEntity> qos{Entity("qos", "low"), Entity("qos", "mid"),
                                    Entity("qos", "high", {{"Preempt", "low"}})};
  ASSERT_TRUE(PrepareAdd(qos, *store_).ok());
  ASSERT_TRUE(store_->AddEntities(qos).ok());
  auto modified = PrepareModify("qos", {"high"}, {{"Preempt+", "mid"}}, *store_);
  ASSERT_TRUE(modified.ok()) << modified.status().ToString();
  EXPECT_EQ(modified->front().fields().at("Preempt"), "low,mid");
  ASSERT_TRUE(store_->ReplaceEntities(*modified).ok());
  modified = PrepareModify("qos", {"high"}, {{"Preempt-", "low"}}, *store_);
  ASSERT_TRUE(modified.ok());
  EXPECT_EQ(modified->front().fields().at("Preempt"), "mid");
  // The names must exist, as with Preempt=.
  EXPECT_EQ(PrepareModify("qos", {"high"}, {{"Preempt+", "nosuch"}}, *store_).status().code(),
            StatusCode::kNotFound);
  // Removing the last leaves none.
  modified = PrepareModify("qos", {"mid"}, {{"Preempt-", "low"}}, *store_);
  ASSERT_TRUE(modified.ok());
  EXPECT_EQ(modified->front().fields().count("Preempt"), 0u);
  // += only where Slurm has lists.
  EXPECT_FALSE(PrepareModify("qos", {"high"}, {{"Priority+", "1"}}, *store_).ok());
}

}  // namespace
}  // namespace rota::dbd
