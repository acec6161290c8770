#include "ctld/core/node_events.h"

#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

conf::ClusterConfig Config(bool on) {
  conf::ClusterConfig c;
  c.settings.cluster_name = "c1";
  c.settings.accounting_storage_type =
      on ? "accounting_storage/slurmdbd" : "accounting_storage/none";
  c.settings.accounting_storage_tres = {"gres/gpu"};
  for (const char* name : {"n1", "n2"}) {
    conf::NodeConfig n;
    n.name = name;
    n.cpus = 8;
    n.real_memory_mb = 64 * 1024;
    n.gres.push_back(GresSpec{"gpu", "a100", 4});
    c.nodes.push_back(n);
  }
  return c;
}

class NodeEventTrackerTest : public ::testing::Test {
 protected:
  NodeRuntime& Node(const char* name) { return *nodes_.Find(name); }
  std::vector<wire::NodeEvent> Observe(const char* name, int64_t now) {
    Effects e;
    tracker_.Observe(config_, Node(name), now, e);
    return e.node_events;
  }
  void TakeDown(const char* name, const std::string& reason, int64_t when) {
    NodeRuntime& n = Node(name);
    n.admin_down = true;
    n.reason = reason;
    n.reason_time = when;
    n.reason_uid = 1000;
  }
  void Resume(const char* name) {
    NodeRuntime& n = Node(name);
    n.admin_down = n.drain = n.down_not_responding = false;
    n.reason.clear();
    n.reason_time = 0;
  }

  conf::ClusterConfig config_ = Config(true);
  NodeTable nodes_{config_};
  NodeEventTracker tracker_;
};

TEST_F(NodeEventTrackerTest, DownThenResumeIsOneEventOpenedThenClosed) {
  EXPECT_TRUE(Observe("n1", 50).empty());  // In service: nothing to tell.
  TakeDown("n1", "fan", 100);
  auto opened = Observe("n1", 100);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0].cluster(), "c1");
  EXPECT_EQ(opened[0].node(), "n1");
  EXPECT_EQ(opened[0].time_start(), 100);
  EXPECT_EQ(opened[0].time_end(), 0);
  EXPECT_EQ(opened[0].state(), "DOWN");
  EXPECT_EQ(opened[0].reason(), "fan");
  EXPECT_EQ(opened[0].reason_uid(), 1000u);
  EXPECT_EQ(opened[0].cpus(), 8u);
  EXPECT_EQ(opened[0].tres(), "cpu=8,mem=64G,node=1,gres/gpu=4");
  EXPECT_TRUE(Observe("n1", 120).empty());  // Persisted again unchanged: nothing new.
  Resume("n1");
  auto closed = Observe("n1", 400);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].time_start(), 100);
  EXPECT_EQ(closed[0].time_end(), 400);
  EXPECT_EQ(closed[0].reason(), "fan");
  EXPECT_EQ(tracker_.open_count(), 0u);
}

TEST_F(NodeEventTrackerTest, ANewReasonClosesTheEventAndOpensAnother) {
  Node("n2").drain = true;
  Node("n2").reason = "memtest";
  Node("n2").reason_time = 100;
  auto drained = Observe("n2", 100);
  ASSERT_EQ(drained.size(), 1u);
  EXPECT_EQ(drained[0].state(), "DRAIN");
  // Drained, then DOWN for a new reason: the drain ends where the DOWN starts.
  TakeDown("n2", "dead", 300);
  auto changed = Observe("n2", 300);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].time_start(), 100);
  EXPECT_EQ(changed[0].time_end(), 300);
  EXPECT_EQ(changed[0].state(), "DRAIN");
  EXPECT_EQ(changed[1].time_start(), 300);
  EXPECT_EQ(changed[1].time_end(), 0);
  EXPECT_EQ(changed[1].state(), "DOWN");
  // Not responding as well, same reason and time: the same event.
  Node("n2").down_not_responding = true;
  EXPECT_TRUE(Observe("n2", 350).empty());
}

TEST_F(NodeEventTrackerTest, AfterARestartTheOpenEventIsClosedWithItsStart) {
  TakeDown("n1", "fan", 100);
  ASSERT_EQ(Observe("n1", 100).size(), 1u);
  NodeEventTracker restarted;  // A new controller, nodes restored from state.
  restarted.Restore(config_, nodes_);
  EXPECT_EQ(restarted.open_count(), 1u);
  Resume("n1");
  Effects e;
  restarted.Observe(config_, Node("n1"), 900, e);
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].time_start(), 100);
  EXPECT_EQ(e.node_events[0].time_end(), 900);
}

TEST_F(NodeEventTrackerTest, NothingWhenAccountingIsOff) {
  config_ = Config(false);
  nodes_ = NodeTable(config_);
  TakeDown("n1", "fan", 100);
  EXPECT_TRUE(Observe("n1", 100).empty());
  tracker_.Restore(config_, nodes_);
  EXPECT_EQ(tracker_.open_count(), 0u);
}

TEST_F(NodeEventTrackerTest, DrainingWhileJobsRun) {
  Node("n1").running_jobs = 1;
  Node("n1").drain = true;
  Node("n1").reason = "upgrade";
  Node("n1").reason_time = 100;
  EXPECT_EQ(NodeEventState(Node("n1")), "DRAINING");
  auto opened = Observe("n1", 100);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0].state(), "DRAINING");
  // The job ends: same event, now DRAIN (sent again, still open).
  Node("n1").running_jobs = 0;
  auto drained = Observe("n1", 200);
  ASSERT_EQ(drained.size(), 1u);
  EXPECT_EQ(drained[0].state(), "DRAIN");
  EXPECT_EQ(drained[0].time_start(), 100);
  EXPECT_EQ(drained[0].time_end(), 0);
}

}  // namespace
}  // namespace rota::ctld
