#include "cli/scontrol_reservation.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <ctime>

namespace rota::cli {
namespace {

constexpr int64_t kNow = 1'800'000'000;

class ScontrolReservationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(ScontrolReservationTest, ParsesCreate) {
  auto req = ParseReservationArgs({"ReservationName=maint", "StartTime=now+1hour", "Duration=90",
                                   "Nodes=n[1-2]", "Users=root,alice", "Flags=MAINT,IGNORE_JOBS"},
                                  true, kNow);
  ASSERT_TRUE(req.ok()) << req.status().message();
  EXPECT_EQ(req->name(), "maint");
  EXPECT_EQ(req->start_time(), kNow + 3600);
  EXPECT_EQ(req->duration_s(), 90 * 60);
  EXPECT_EQ(req->nodes(), "n[1-2]");
  ASSERT_EQ(req->users_size(), 2);
  EXPECT_EQ(req->users(1), "alice");
  EXPECT_EQ(req->flags(), uint32_t{wire::RESV_FLAG_MAINT | wire::RESV_FLAG_IGNORE_JOBS});
  auto unlimited = ParseReservationArgs(
      {"starttime=now", "duration=UNLIMITED", "nodecnt=2", "accounts=phys"}, true, kNow);
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(unlimited->duration_s(), -1);
  EXPECT_EQ(unlimited->node_count(), 2u);
}

TEST_F(ScontrolReservationTest, RefusesWhatSlurmRefusesBeforeSending) {
  auto msg = [](std::vector<std::string> args, bool create = true) {
    return ParseReservationArgs(args, create, kNow).status().message();
  };
  EXPECT_EQ(msg({"Duration=10", "Nodes=n1", "Users=a"}),
            "A start time must be given.  No reservation created.");
  EXPECT_EQ(msg({"StartTime=now", "Nodes=n1", "Users=a"}),
            "An end time or duration must be given.  No reservation created.");
  EXPECT_EQ(msg({"StartTime=now", "Duration=10", "Users=a"}),
            "Either Nodes or NodeCnt must be specified.  No reservation created.");
  EXPECT_EQ(msg({"StartTime=now", "Duration=10", "Nodes=n1"}),
            "Either Users or Accounts must be specified.  No reservation created.");
  EXPECT_EQ(msg({"StartTime=now", "Duration=10", "Nodes=n1", "Users=a", "Flags=DAILY"}),
            "Flag DAILY is not supported.  No reservation created.");
  EXPECT_EQ(msg({"StartTime=now", "Duration=10", "Nodes=n1", "Users=a", "Licenses=x:1"}),
            "Licenses is not supported by Rota.  No reservation created.");
  EXPECT_EQ(msg({"Users=a"}, false), "ReservationName must be given.  No reservation update.");
  EXPECT_EQ(msg({"ReservationName=r", "Users+=a"}, false),
            "Users+= is not supported; give the whole list.  No reservation update.");
}

TEST_F(ScontrolReservationTest, ShowsSlurmLayout) {
  wire::ReservationRecord r;
  r.set_name("root_1");
  r.set_start_time(kNow);
  r.set_end_time(kNow + 3600);
  r.add_nodes("n1");
  r.add_nodes("n2");
  r.add_users("alice");
  r.set_flags(wire::RESV_FLAG_MAINT | wire::RESV_FLAG_SPEC_NODES);
  r.set_core_count(8);
  EXPECT_EQ(FormatReservation(r, kNow + 10, false),
            "ReservationName=root_1 StartTime=2027-01-15T08:00:00 EndTime=2027-01-15T09:00:00 "
            "Duration=01:00:00\n"
            "   Nodes=n[1-2] NodeCnt=2 CoreCnt=8 Features=(null) PartitionName=(null) "
            "Flags=MAINT,SPEC_NODES\n"
            "   TRES=cpu=8\n"
            "   Users=alice Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE "
            "BurstBuffer=(null) Watts=n/a\n"
            "   MaxStartDelay=(null)\n\n");
  std::string one = FormatReservation(r, kNow - 10, true);
  EXPECT_NE(one.find("State=INACTIVE"), std::string::npos);
  EXPECT_EQ(one.find('\n'), one.size() - 1);
}

}  // namespace
}  // namespace rota::cli
