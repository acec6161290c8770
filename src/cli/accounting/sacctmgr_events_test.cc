#include "cli/accounting/sacctmgr_events.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace rota::cli {
namespace {

constexpr int64_t kNow = 1'800'000'000;  // 2027-01-15T08:00:00 UTC

class SacctmgrEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

wire::NodeEvent Event(const std::string& node, int64_t start, int64_t end, const std::string& state,
                      const std::string& reason, uint32_t uid) {
  wire::NodeEvent e;
  e.set_cluster("rota");
  e.set_node(node);
  e.set_time_start(start);
  e.set_time_end(end);
  e.set_state(state);
  e.set_reason(reason);
  e.set_reason_uid(uid);
  e.set_cpus(8);
  e.set_tres("cpu=8,mem=64G,node=1");
  return e;
}

std::string Name(uint32_t uid) { return uid == 0 ? "root" : "u" + std::to_string(uid); }

TEST_F(SacctmgrEventsTest, DefaultWindowIsFromYesterdayMidnightUntilNow) {
  auto c = ParseEventsCommand({}, kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->query.window_start(), kNow - kNow % 86400 - 86400);
  EXPECT_EQ(c->query.window_end(), 0);  // Open events and everything up to now
  EXPECT_FALSE(c->query.open_only());
}

TEST_F(SacctmgrEventsTest, WhereNodesStatesStartEndAndFormat) {
  auto c =
      ParseEventsCommand({"where", "Nodes=n[1-3]", "States=down,drain", "Start=2027-01-01T00:00:00",
                          "End=2027-01-02", "format=NodeName,State"},
                         kNow);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->query.nodes_size(), 3);
  EXPECT_EQ(c->query.nodes(2), "n3");
  ASSERT_EQ(c->query.states_size(), 2);
  EXPECT_EQ(c->query.states(0), "DOWN");
  EXPECT_EQ(c->query.window_start(), 1798761600);
  EXPECT_EQ(c->query.window_end(), 1798848000);
  EXPECT_FALSE(c->query.open_only());
  EXPECT_EQ(c->format, "NodeName,State");
  // States= without Start=: what is in those states now.
  auto now_down = ParseEventsCommand({"States=DOWN"}, kNow);
  ASSERT_TRUE(now_down.ok());
  EXPECT_TRUE(now_down->query.open_only());
  EXPECT_EQ(ParseEventsCommand({"Colour=red"}, kNow).status().message(),
            "Unknown condition: Colour=red");
  EXPECT_FALSE(ParseEventsCommand({"Start=yesterdayish"}, kNow).ok());
}

TEST_F(SacctmgrEventsTest, ParsableListingWithSlurmsDefaultColumns) {
  auto c = ParseEventsCommand({}, kNow);
  ASSERT_TRUE(c.ok());
  std::vector<wire::NodeEvent> events = {
      Event("n1", kNow - 7200, kNow - 3600, "DOWN", "fan broken", 1000),
      Event("n2", kNow - 600, 0, "DRAIN", "memory test", 0)};
  auto text = RenderEvents(events, *c, SacctLayout::kParsable2, false, Name);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
            "rota|n1|2027-01-15T06:00:00|2027-01-15T07:00:00|DOWN|fan broken|u1000\n"
            "rota|n2|2027-01-15T07:50:00|Unknown|DRAIN|memory test|root\n");
}

TEST_F(SacctmgrEventsTest, AlignedListingAndOtherFields) {
  EventsCommand c;
  std::vector<wire::NodeEvent> events = {Event("node-with-a-long-name", kNow - 90061, kNow,
                                               "DRAINING", "a reason longer than thirty characters",
                                               0)};
  auto text = RenderEvents(events, c, SacctLayout::kAligned, false, Name);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "   Cluster        NodeName           TimeStart             TimeEnd  State "
            "                        Reason            User \n"
            "---------- --------------- ------------------- ------------------- ------ "
            "------------------------------ --------------- \n"
            "      rota node-with-a-lo+ 2027-01-14T06:58:59 2027-01-15T08:00:00 DRAIN+ "
            "a reason longer than thirty c+            root \n");
  c.format = "NodeName,Duration,CPUs,TRES%25,Event";
  text = RenderEvents(events, c, SacctLayout::kParsable, true, Name);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "node-with-a-long-name|1-01:01:01|8|cpu=8,mem=64G,node=1|Node|\n");
  c.format = "Colour";
  EXPECT_FALSE(RenderEvents(events, c, SacctLayout::kParsable, true, Name).ok());
}

TEST_F(SacctmgrEventsTest, ReasonAndUserFiltersApplyToTheListing) {
  auto c = ParseEventsCommand({"Reason=fan", "User=root"}, kNow);
  ASSERT_TRUE(c.ok());
  std::vector<wire::NodeEvent> events = {Event("n1", kNow - 60, 0, "DOWN", "fan broken", 0),
                                         Event("n2", kNow - 60, 0, "DOWN", "fan broken", 1000),
                                         Event("n3", kNow - 60, 0, "DOWN", "disk", 0)};
  c->format = "NodeName";
  auto text = RenderEvents(events, *c, SacctLayout::kParsable2, true, Name);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "n1\n");
}

}  // namespace
}  // namespace rota::cli
