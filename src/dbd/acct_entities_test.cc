// sacctmgr's rules as rotadbd applies them, on a real SQLite file: the QoS
// preemption settings (Preempt lists of existing QoS, PreemptMode values).
#include "dbd/acct_entities.h"

#include <gtest/gtest.h>

#include "dbd/sqlite_store.h"
#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

class AcctEntitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SqliteStore::Open((dir_.path() / "acct.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ASSERT_TRUE(Add({Qos("normal", {})}).ok());
  }
  static wire::AcctEntity Qos(const std::string& name, std::map<std::string, std::string> fields) {
    wire::AcctEntity e;
    e.set_kind("qos");
    e.set_name(name);
    for (auto& [k, v] : fields) (*e.mutable_fields())[k] = v;
    return e;
  }
  Status Add(std::vector<wire::AcctEntity> entities) {
    ROTA_RETURN_IF_ERROR(PrepareAdd(entities, *store_));
    return store_->AddEntities(entities);
  }
  std::string Field(const std::string& qos, const std::string& key) {
    auto found = store_->ListEntities("qos", {qos});
    if (!found.ok() || found->empty()) return "<none>";
    auto it = found->front().fields().find(key);
    return it == found->front().fields().end() ? "<unset>" : it->second;
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(AcctEntitiesTest, PreemptListsNameExistingQosAndAreCanonical) {
  // scavenger is added in the same batch, after the QoS that names it.
  ASSERT_TRUE(Add({Qos("urgent", {{"preempt", " normal, scavenger ,"}, {"preemptmode", "requeue"}}),
                   Qos("scavenger", {{"PreemptMode", "suspend,gang"}})})
                  .ok());
  EXPECT_EQ(Field("urgent", "Preempt"), "normal,scavenger");
  EXPECT_EQ(Field("urgent", "PreemptMode"), "REQUEUE");
  EXPECT_EQ(Field("scavenger", "PreemptMode"), "SUSPEND,GANG");
}

TEST_F(AcctEntitiesTest, UnknownOrSelfPreemptionAndBadModesAreRefused) {
  Status unknown = Add({Qos("urgent", {{"Preempt", "nosuch"}})});
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.message(), "Preempt: the QOS nosuch doesn't exist");
  Status self = Add({Qos("urgent", {{"Preempt", "normal,urgent"}})});
  EXPECT_EQ(self.message(), "QOS urgent cannot preempt itself");
  EXPECT_EQ(Add({Qos("urgent", {{"PreemptMode", "sometimes"}})}).message(),
            "Bad PreemptMode value: sometimes");
  EXPECT_EQ(Field("urgent", "Preempt"), "<none>");  // Nothing of a refused batch stored
}

TEST_F(AcctEntitiesTest, ModifyChecksThePreemptListToo) {
  ASSERT_TRUE(Add({Qos("urgent", {})}).ok());
  auto bad = PrepareModify("qos", {"urgent"}, {{"Preempt", "ghost"}}, *store_);
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  auto good = PrepareModify("qos", {"urgent"}, {{"Preempt", "normal"}}, *store_);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  ASSERT_TRUE(store_->ReplaceEntities(*good).ok());
  EXPECT_EQ(Field("urgent", "Preempt"), "normal");
  auto cleared = PrepareModify("qos", {"urgent"}, {{"Preempt", ""}}, *store_);
  ASSERT_TRUE(cleared.ok());
  ASSERT_TRUE(store_->ReplaceEntities(*cleared).ok());
  EXPECT_EQ(Field("urgent", "Preempt"), "<unset>");
}

TEST_F(AcctEntitiesTest, PreemptExemptTimeIsADuration) {
  ASSERT_TRUE(Add({Qos("settled", {{"PreemptExemptTime", "00:02:00"}})}).ok());
  EXPECT_EQ(Field("settled", "PreemptExemptTime"), "00:02:00");
  EXPECT_EQ(Add({Qos("bad", {{"PreemptExemptTime", "soon"}})}).message(),
            "Bad PreemptExemptTime value: soon");
}

}  // namespace
}  // namespace rota::dbd
