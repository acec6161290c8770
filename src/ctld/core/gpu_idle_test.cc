// GPU idle flags in the controller core: a node daemon's reports flag and
// unflag a running job, rotadbd gets a GPU_IDLE event, and the partition's
// GpuIdlePolicy mails, cancels or requeues.
#include "ctld/core/gpu_idle.h"

#include <gtest/gtest.h>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

class GpuIdleTest : public testing::CoreTest {
 protected:
  void StartWith(const std::string& policy) {
    Start(
        "GresTypes=gpu\nNodeName=n1 CPUs=4 RealMemory=1000 Gres=gpu:2\n"
        "PartitionName=p Nodes=n1 Default=YES " +
        policy + "\n");
  }
  uint32_t RunningJob(const std::string& mail_user = "") {
    uint32_t id = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_gpus("1");
      s.set_uid(alice_.uid);
      s.set_user("alice");
      s.set_mail_user(mail_user);
    });
    Tick();
    EXPECT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
    return id;
  }
  Effects Report(uint32_t id, bool idle, double util = 1.5, const std::string& node = "n1",
                 int64_t idle_for = 600) {
    wire::JobGpuIdleRequest r;
    r.set_job_id(id);
    r.set_node(node);
    r.set_run(Job(id).restart_count());
    r.set_idle(idle);
    r.set_since(now_ - idle_for);
    r.set_mean_util_pct(util);
    Effects e;
    EXPECT_TRUE(core_->GpuIdleReported(r, now_, e).ok());
    return e;
  }
};

TEST_F(GpuIdleTest, AReportFlagsTheJobAndOpensAnEventThatBusyAgainCloses) {
  StartWith("");
  const uint32_t id = RunningJob();
  Effects e = Report(id, true);
  EXPECT_EQ(Job(id).gpu_idle_since(), now_ - 600);
  EXPECT_DOUBLE_EQ(Job(id).gpu_idle_util(), 1.5);
  EXPECT_EQ(Job(id).gpu_idle_action_at(), 0) << "no action by default";
  EXPECT_TRUE(e.mails.empty()) << "no mail by default";
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].state(), "GPU_IDLE");
  EXPECT_EQ(e.node_events[0].node(), "n1");
  EXPECT_EQ(e.node_events[0].time_start(), now_ - 600);
  EXPECT_EQ(e.node_events[0].time_end(), 0);
  EXPECT_EQ(e.node_events[0].reason(), "job " + std::to_string(id) + ": GPUs below 5% (mean 1.5%)");
  EXPECT_EQ(e.node_events[0].user(), "alice");
  EXPECT_FALSE(e.records.empty()) << "persisted";

  EXPECT_TRUE(Report(id, true).node_events.empty()) << "already flagged";
  now_ += 60;
  e = Report(id, false);
  EXPECT_EQ(Job(id).gpu_idle_since(), 0);
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].time_start(), now_ - 60 - 600);
  EXPECT_EQ(e.node_events[0].time_end(), now_);
}

TEST_F(GpuIdleTest, ReportsOfAnotherNodeOrRunAreIgnored) {
  StartWith("");
  const uint32_t id = RunningJob();
  EXPECT_TRUE(Report(id, true, 1, "n2").node_events.empty());
  wire::JobGpuIdleRequest stale;
  stale.set_job_id(id);
  stale.set_node("n1");
  stale.set_run(7);
  stale.set_idle(true);
  Effects e;
  ASSERT_TRUE(core_->GpuIdleReported(stale, now_, e).ok());
  EXPECT_EQ(Job(id).gpu_idle_since(), 0);
  wire::JobGpuIdleRequest unknown = stale;
  unknown.set_job_id(999);
  EXPECT_FALSE(core_->GpuIdleReported(unknown, now_, e).ok());
}

// A job on two nodes is idle once both nodes' rotad say so; busy again on
// either unflags it. The second node learns of its share from the heartbeat.
TEST_F(GpuIdleTest, AJobOnTwoNodesIsFlaggedOnceEveryNodeSaysItsGpusAreIdle) {
  Start(
      "GresTypes=gpu\nNodeName=n[1-2] CPUs=4 RealMemory=1000 Gres=gpu:2\n"
      "NodeName=n3 CPUs=4 RealMemory=1000\n"
      "PartitionName=p Nodes=n[1-3] Default=YES\n");
  const uint32_t id = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
    s.set_min_nodes(2);
    s.set_gpus_per_node("2");
    s.set_uid(alice_.uid);
    s.set_user("alice");
  });
  Tick();
  ASSERT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(Job(id).nodes_size(), 2);
  const std::string first = Job(id).nodes(0);
  const std::string second = Job(id).nodes(1);

  EXPECT_TRUE(core_->GpuSharesOn(first).empty()) << "its batch launch watches the first node";
  EXPECT_TRUE(core_->GpuSharesOn("n3").empty());
  const std::vector<wire::GpuShare> shares = core_->GpuSharesOn(second);
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].job_id(), id);
  EXPECT_EQ(shares[0].run(), Job(id).restart_count());
  EXPECT_EQ(shares[0].gpu_ids(), "0-1");
  EXPECT_EQ(shares[0].partition(), "p");

  // The first node alone: not flagged.
  EXPECT_TRUE(Report(id, true, 1.0, first).node_events.empty());
  EXPECT_EQ(Job(id).gpu_idle_since(), 0);
  // The second too: flagged since the later of the two, at the mean of all
  // four GPUs.
  Effects e = Report(id, true, 3.0, second, 100);
  EXPECT_EQ(Job(id).gpu_idle_since(), now_ - 100);
  EXPECT_DOUBLE_EQ(Job(id).gpu_idle_util(), 2.0);
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].node(), first);
  EXPECT_EQ(e.node_events[0].time_end(), 0);

  // A node without its GPUs has no say.
  EXPECT_TRUE(Report(id, false, 50, "n3").node_events.empty());
  EXPECT_GT(Job(id).gpu_idle_since(), 0);
  // Busy again on the second node: unflagged, the first's word kept.
  e = Report(id, false, 40, second);
  EXPECT_EQ(Job(id).gpu_idle_since(), 0);
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].time_end(), now_);
  ASSERT_EQ(Job(id).gpu_idle_nodes_size(), 1);
  EXPECT_EQ(Job(id).gpu_idle_nodes(0).node(), first);
  // Idle again there: flagged again at once.
  Report(id, true, 1.0, second);
  EXPECT_GT(Job(id).gpu_idle_since(), 0);

  // The run ends: the nodes' words go with it.
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids(std::to_string(id));
  Effects ended;
  EXPECT_EQ(core_->SignalJobs(cancel, alice_, now_, ended).affected(), 1u);
  EXPECT_EQ(Job(id).gpu_idle_since(), 0);
  EXPECT_EQ(Job(id).gpu_idle_nodes_size(), 0);
  EXPECT_TRUE(core_->GpuSharesOn(second).empty());
}

TEST_F(GpuIdleTest, NotifyMailsTheUser) {
  StartWith("GpuIdlePolicy=threshold=3,action=notify");
  const uint32_t id = RunningJob("alice@example.org");
  Effects e = Report(id, true, 0.5);
  ASSERT_EQ(e.mails.size(), 1u);
  EXPECT_EQ(e.mails[0].recipient, "alice@example.org");
  EXPECT_EQ(e.mails[0].subject, "Slurm Job_id=" + std::to_string(id) +
                                    " Name=job GPUs idle since " + GpuIdleTime(now_ - 600) +
                                    " (mean 0.5%, below 3%)");
  EXPECT_NE(std::find(e.mails[0].environment.begin(), e.mails[0].environment.end(),
                      "SLURM_JOB_MAIL_TYPE=GPU_IDLE"),
            e.mails[0].environment.end());
  EXPECT_EQ(Job(id).gpu_idle_action_at(), 0);
}

// (Within SlurmdTimeout of the nodes' registration: the fixture's nodes
// register once.)
TEST_F(GpuIdleTest, CancelFollowsTheGraceUnlessTheGpusWakeUp) {
  StartWith("GpuIdlePolicy=action=cancel,grace=1");
  const uint32_t id = RunningJob();
  Effects e = Report(id, true);
  EXPECT_EQ(Job(id).gpu_idle_action_at(), now_ + 60);
  ASSERT_EQ(e.mails.size(), 1u) << "warned";
  EXPECT_NE(e.mails[0].subject.find(", cancel at " + GpuIdleTime(now_ + 60)), std::string::npos)
      << e.mails[0].subject;
  now_ += 59;
  Tick();
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
  now_ += 1;
  e = Tick();
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETING);
  EXPECT_EQ(Job(id).final_state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(id).gpu_idle_since(), 0) << "the flag ends with the run";
  ASSERT_FALSE(e.signals.empty());
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  ASSERT_EQ(e.node_events.size(), 1u);
  EXPECT_EQ(e.node_events[0].time_end(), now_);

  // Busy again within the grace: nothing happens.
  const uint32_t other = RunningJob();
  Report(other, true);
  now_ += 30;
  Report(other, false);
  now_ += 100;
  Tick();
  EXPECT_EQ(Job(other).state(), wire::JOB_STATE_RUNNING);
}

TEST_F(GpuIdleTest, RequeueReturnsARequeueableJobToTheQueue) {
  StartWith("GpuIdlePolicy=action=requeue");
  const uint32_t id = RunningJob();
  Report(id, true);
  Tick();
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETING);
  EXPECT_EQ(Job(id).final_state(), wire::JOB_STATE_REQUEUED);
  EXPECT_EQ(Job(id).gpu_idle_nodes_size(), 0) << "the next run is judged afresh";
}

}  // namespace
}  // namespace rota::ctld
