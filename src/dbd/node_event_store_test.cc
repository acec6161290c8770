// Node events in the AccountingStore, against each backend: stored once
// whatever the controller repeats, never reopened, found by node, state and
// window.
#include <gtest/gtest.h>

#include "dbd/store_test_support.h"

namespace rota::dbd {
namespace {

wire::NodeEvent Event(const std::string& node, int64_t start, int64_t end,
                      const std::string& state = "DOWN", const std::string& reason = "fan") {
  wire::NodeEvent e;
  e.set_cluster("c");
  e.set_node(node);
  e.set_time_start(start);
  e.set_time_end(end);
  e.set_state(state);
  e.set_reason(reason);
  e.set_reason_uid(1000);
  e.set_user("alice");
  e.set_cpus(8);
  e.set_tres("cpu=8,mem=64G,node=1,gres/gpu=4");
  return e;
}

std::vector<wire::NodeEvent> Query(AccountingStore& store, int64_t start, int64_t end,
                                   std::vector<std::string> nodes = {},
                                   std::vector<std::string> states = {}) {
  wire::QueryNodeEventsRequest q;
  q.set_window_start(start);
  q.set_window_end(end);
  for (const std::string& n : nodes) q.add_nodes(n);
  for (const std::string& s : states) q.add_states(s);
  auto got = store.QueryNodeEvents(q);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? *got : std::vector<wire::NodeEvent>{};
}

class NodeEventStoreTest : public StoreFixture, public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { PrepareDatabase(GetParam()); }
};

TEST_P(NodeEventStoreTest, OpenThenCloseIsOneEventAndRepeatsChangeNothing) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  const auto open = Event("n1", 100, 0);
  const auto closed = Event("n1", 100, 400);
  ASSERT_TRUE(store->UpsertNodeEvents({open}).ok());
  auto events = Query(*store, 0, 0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].time_end(), 0);
  ASSERT_TRUE(store->UpsertNodeEvents({closed, open}).ok());  // A late open record.
  ASSERT_TRUE(store->UpsertNodeEvents({open, closed}).ok());  // The batch delivered again.
  events = Query(*store, 0, 0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].time_start(), 100);
  EXPECT_EQ(events[0].time_end(), 400);
  EXPECT_EQ(events[0].reason(), "fan");
  EXPECT_EQ(events[0].user(), "alice");
  EXPECT_EQ(events[0].tres(), "cpu=8,mem=64G,node=1,gres/gpu=4");
  ASSERT_TRUE(store->UpsertNodeEvents({}).ok());
}

TEST_P(NodeEventStoreTest, FiltersByNodeStateAndWindowInStartOrder) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->UpsertNodeEvents({Event("n2", 300, 0, "DRAIN"), Event("n1", 100, 200),
                                      Event("n1", 500, 600), Event("n3", 300, 350, "DRAIN")})
                  .ok());
  auto all = Query(*store, 0, 0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].node(), "n1");
  EXPECT_EQ(all[1].node(), "n2");  // Same start: by node.
  EXPECT_EQ(all[2].node(), "n3");
  EXPECT_EQ(all[3].time_start(), 500);

  EXPECT_EQ(Query(*store, 0, 0, {"n1"}).size(), 2u);
  EXPECT_EQ(Query(*store, 0, 0, {}, {"DRAIN"}).size(), 2u);
  // Window [250, 400]: n1's first event ended before it, its second starts after.
  auto window = Query(*store, 250, 400);
  ASSERT_EQ(window.size(), 2u);
  EXPECT_EQ(window[0].node(), "n2");
  EXPECT_EQ(window[1].node(), "n3");
  // An open event is in every window after its start.
  auto late = Query(*store, 10000, 20000);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].node(), "n2");

  wire::QueryNodeEventsRequest open_only;
  open_only.set_open_only(true);
  auto open = store->QueryNodeEvents(open_only);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].node(), "n2");
}

TEST_P(NodeEventStoreTest, EventsSurviveReopening) {
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->UpsertNodeEvents({Event("n1", 100, 0)}).ok());
  }
  auto again = OpenStore();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->SchemaVersion(), CurrentVersion());
  ASSERT_TRUE(again->UpsertNodeEvents({Event("n1", 100, 150)}).ok());
  auto events = Query(*again, 0, 0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].time_end(), 150);
}

INSTANTIATE_TEST_SUITE_P(Backends, NodeEventStoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPgsql), BackendName);

}  // namespace
}  // namespace rota::dbd
