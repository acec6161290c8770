#include "ctld/core/reservation_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sched/availability_profile.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr int64_t kT0 = 1'800'000'000;

class ReservationTableTest : public ::testing::Test {
 protected:
  ReservationTableTest() {
    auto loaded = LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\n"
                                         "NodeName=n[1-4] CPUs=4 RealMemory=1000\n"
                                         "PartitionName=batch Nodes=n[1-4] Default=YES\n"
                                         "PartitionName=half Nodes=n[3-4]\n"});
    EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
  }

  // StartTime=kT0+start Duration=secs Users=alice plus `fields` ("nodes" or
  // "nodecnt" with their values).
  wire::ReservationRequest Request(const std::string& name, int64_t start, int64_t secs) {
    wire::ReservationRequest r;
    r.set_name(name);
    r.set_start_time(kT0 + start);
    r.set_duration_s(secs);
    r.add_users("alice");
    r.add_given("starttime");
    r.add_given("duration");
    r.add_given("users");
    return r;
  }
  static wire::ReservationRequest& Nodes(wire::ReservationRequest& r, const std::string& nodes) {
    r.set_nodes(nodes);
    r.add_given("nodes");
    return r;
  }
  static wire::ReservationRequest& Count(wire::ReservationRequest& r, uint32_t n) {
    r.set_node_count(n);
    r.add_given("nodecnt");
    return r;
  }

  TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  ReservationTable table_;
  ReservationTable::BusyUntil busy_;
};

TEST_F(ReservationTableTest, CreatesWithDefaultNamesAndSpecNodes) {
  wire::ReservationRequest r = Request("", 0, 3600);
  auto a = table_.Create(Nodes(r, "n[1-2]"), "root", *config_, busy_, kT0);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->name(), "root_1");
  EXPECT_EQ(a->start_time(), kT0);
  EXPECT_EQ(a->end_time(), kT0 + 3600);
  EXPECT_EQ(a->nodes_size(), 2);
  EXPECT_EQ(a->core_count(), 8u);
  EXPECT_TRUE(a->flags() & wire::RESV_FLAG_SPEC_NODES);
  wire::ReservationRequest r2 = Request("", 3600, 60);
  auto b = table_.Create(Count(r2, 1), "root", *config_, busy_, kT0);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->name(), "root_2");
  EXPECT_EQ(b->nodes(0), "n1");  // Free again once root_1 has ended
  EXPECT_FALSE(b->flags() & wire::RESV_FLAG_SPEC_NODES);
  // The same name twice is refused.
  wire::ReservationRequest dup = Request("root_1", 7200, 60);
  EXPECT_EQ(table_.Create(Nodes(dup, "n4"), "root", *config_, busy_, kT0).status().message(),
            "Duplicate reservation name");
}

TEST_F(ReservationTableTest, OverlappingReservationsAreRefusedUnlessAFlagAllowsIt) {
  wire::ReservationRequest a = Request("a", 100, 1000);
  ASSERT_TRUE(table_.Create(Nodes(a, "n[1-2]"), "root", *config_, busy_, kT0).ok());
  wire::ReservationRequest b = Request("b", 500, 1000);
  EXPECT_EQ(table_.Create(Nodes(b, "n2"), "root", *config_, busy_, kT0).status().message(),
            "Requested nodes are busy");
  // Other nodes, or the same nodes after a's window: fine.
  wire::ReservationRequest c = Request("c", 500, 1000);
  EXPECT_TRUE(table_.Create(Nodes(c, "n3"), "root", *config_, busy_, kT0).ok());
  wire::ReservationRequest d = Request("d", 1100, 1000);
  EXPECT_TRUE(table_.Create(Nodes(d, "n1"), "root", *config_, busy_, kT0).ok());
  // MAINT and OVERLAP may share.
  wire::ReservationRequest m = Request("m", 0, 5000);
  m.set_flags(wire::RESV_FLAG_MAINT);
  EXPECT_TRUE(table_.Create(Nodes(m, "ALL"), "root", *config_, busy_, kT0).ok());
  // NodeCnt picks around the others: only n4 is free over [kT0+500, +1500).
  wire::ReservationRequest e = Request("e", 500, 1000);
  auto got = table_.Create(Count(e, 1), "root", *config_, busy_, kT0);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->nodes(0), "n4");
  wire::ReservationRequest f = Request("f", 500, 1000);
  EXPECT_EQ(table_.Create(Count(f, 1), "root", *config_, busy_, kT0).status().message(),
            "Requested nodes are busy");
}

TEST_F(ReservationTableTest, BusyNodesRefusedUnlessIgnoreJobs) {
  busy_["n1"] = kT0 + 600;        // A job runs there until +10 min
  busy_["n2"] = sched::kForever;  // ... and one without a time limit
  wire::ReservationRequest a = Request("a", 300, 600);
  EXPECT_EQ(table_.Create(Nodes(a, "n1"), "root", *config_, busy_, kT0).status().message(),
            "Requested nodes are busy");
  wire::ReservationRequest b = Request("b", 600, 600);  // Starts when the job ends
  EXPECT_TRUE(table_.Create(Nodes(b, "n1"), "root", *config_, busy_, kT0).ok());
  wire::ReservationRequest c = Request("c", 300, 600);
  c.set_flags(wire::RESV_FLAG_IGNORE_JOBS);
  EXPECT_TRUE(table_.Create(Nodes(c, "n2"), "root", *config_, busy_, kT0).ok());
  // NodeCnt skips the busy ones.
  wire::ReservationRequest d = Request("d", 0, 600);
  d.set_partition("batch");
  auto got = table_.Create(Count(d, 2), "root", *config_, busy_, kT0);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->nodes(0), "n3");
  EXPECT_EQ(got->nodes(1), "n4");
}

TEST_F(ReservationTableTest, ChecksInput) {
  wire::ReservationRequest a = Request("a", 0, 600);
  EXPECT_EQ(table_.Create(Nodes(a, "n9"), "root", *config_, busy_, kT0).status().message(),
            "Invalid node name specified");
  wire::ReservationRequest b = Request("b", 0, 600);
  b.set_partition("nope");
  EXPECT_EQ(table_.Create(Count(b, 1), "root", *config_, busy_, kT0).status().message(),
            "Invalid partition name specified");
  wire::ReservationRequest c = Request("c", 0, 600);
  c.clear_users();
  EXPECT_FALSE(table_.Create(Nodes(c, "n1"), "root", *config_, busy_, kT0).ok());
  wire::ReservationRequest d = Request("d", 0, 600);
  d.set_partition("half");
  auto got = table_.Create(Nodes(d, "ALL"), "root", *config_, busy_, kT0);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->nodes_size(), 2);                   // ALL within the partition
  wire::ReservationRequest e = Request("e", 0, -1);  // Duration=UNLIMITED
  auto unlimited = table_.Create(Nodes(e, "n1"), "root", *config_, busy_, kT0);
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(unlimited->end_time(), kT0 + kUnlimitedReservationSecs);
}

TEST_F(ReservationTableTest, AccessByUserOrAccount) {
  wire::ReservationRequest a = Request("a", 0, 600);
  a.add_accounts("physics");
  a.add_given("accounts");
  ASSERT_TRUE(table_.Create(Nodes(a, "n1"), "root", *config_, busy_, kT0).ok());
  EXPECT_TRUE(table_.CheckAccess("a", "alice", "").ok());
  EXPECT_TRUE(table_.CheckAccess("a", "bob", "physics").ok());
  Status denied = table_.CheckAccess("a", "bob", "chemistry");
  EXPECT_EQ(denied.message(), "Access denied to requested reservation");
  EXPECT_EQ(table_.CheckAccess("zzz", "alice", "").message(), "Requested reservation is invalid");
}

TEST_F(ReservationTableTest, UpdateMovesKeepsLengthAndExpiryRemoves) {
  wire::ReservationRequest a = Request("a", 100, 600);
  ASSERT_TRUE(table_.Create(Nodes(a, "n1"), "root", *config_, busy_, kT0).ok());
  wire::ReservationRequest u;
  u.set_name("a");
  u.set_start_time(kT0 + 1000);
  u.add_given("starttime");
  u.add_users("bob");
  u.add_given("users");
  auto moved = table_.Update(u, *config_, busy_, kT0);
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  EXPECT_EQ(moved->end_time(), kT0 + 1600);
  EXPECT_EQ(moved->users(0), "bob");
  wire::ReservationRequest grow;
  grow.set_name("a");
  grow.set_nodes("n[1-3]");
  grow.add_given("nodes");
  EXPECT_EQ(table_.Update(grow, *config_, busy_, kT0)->nodes_size(), 3);
  wire::ReservationRequest missing;
  missing.set_name("b");
  EXPECT_FALSE(table_.Update(missing, *config_, busy_, kT0).ok());

  EXPECT_EQ(table_.NextEventAfter(kT0), kT0 + 1000);
  EXPECT_TRUE(table_.Expire(kT0 + 1599).empty());
  EXPECT_EQ(table_.Expire(kT0 + 1600), std::vector<std::string>{"a"});
  EXPECT_TRUE(table_.empty());
  EXPECT_EQ(table_.Delete("a").message(), "Requested reservation is invalid");
}

TEST_F(ReservationTableTest, StateAndChangesRoundTrip) {
  wire::ReservationRequest a = Request("", 0, 600);
  auto rec = table_.Create(Nodes(a, "n1"), "root", *config_, busy_, kT0);
  ASSERT_TRUE(rec.ok());
  ReservationTable replayed;
  replayed.Apply(table_.UpsertChange(*rec));
  ASSERT_NE(replayed.Find("root_1"), nullptr);
  // The counter survives: the next default name is root_2 even after a delete.
  replayed.Apply(replayed.RemoveChange("root_1"));
  EXPECT_EQ(replayed.Find("root_1"), nullptr);
  wire::ReservationRequest b = Request("", 0, 600);
  EXPECT_EQ(replayed.Create(Nodes(b, "n1"), "root", *config_, busy_, kT0)->name(), "root_2");
  ReservationTable restored;
  restored.Restore(replayed.State());
  ASSERT_NE(restored.Find("root_2"), nullptr);
  wire::ReservationRequest c = Request("", 0, 600);
  EXPECT_EQ(restored.Create(Nodes(c, "n2"), "root", *config_, busy_, kT0)->name(), "root_3");
  EXPECT_EQ(restored.StateFlagOf("n2", kT0, true), "RESERVED");
  EXPECT_EQ(restored.StateFlagOf("n2", kT0, false), "");
  EXPECT_EQ(restored.StateFlagOf("n3", kT0, true), "");
}

}  // namespace
}  // namespace rota::ctld
