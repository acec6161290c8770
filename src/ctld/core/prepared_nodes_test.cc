// PrologFlags=Alloc/Contain in the controller core: the job's other nodes hear
// of its end (their cages go) and a Prolog failing on one of them requeues the
// job and drains that node.

#include "ctld/core/prepared_nodes.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>

#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

class PreparedNodesTest : public testing::CoreTest {
 protected:
  void Start(const std::string& settings) {
    CoreTest::Start(settings +
                    "NodeName=n[1-3] CPUs=4 RealMemory=16000\n"
                    "PartitionName=batch Nodes=n[1-3] Default=YES MaxTime=1-00:00:00\n");
  }
  // A running job on `nodes` nodes: submitted at now_ (kT0, as now_ stays
  // here), scheduled at kT0 + 1.
  uint32_t Run(uint32_t nodes) {
    uint32_t id = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.clear_name();  // Unnamed, as before the fixture
      s.set_min_nodes(nodes);
      s.set_script("#!/bin/sh\nsleep 100\n");
    });
    Effects tick;
    core_->Tick(kT0 + 1, tick);
    EXPECT_EQ(tick.launches.size(), 1u);
    return id;
  }
  Effects Report(uint32_t id, const std::string& node, bool cleanup_follows,
                 bool prolog_failed = false) {
    wire::JobExitedRequest req;
    req.set_job_id(id);
    req.set_node(node);
    req.set_cleanup_follows(cleanup_follows);
    if (prolog_failed) {
      req.set_wait_status(1 << 8);
      req.set_prolog_failed(true);
      req.set_failure_reason("no scratch");
    }
    Effects e;
    EXPECT_TRUE(core_->ReportExit(req, kT0 + 5, e).ok());
    return e;
  }
};

TEST_F(PreparedNodesTest, TheFlagsThatPrepareEveryNode) {
  Start("PrologFlags=Contain\n");
  EXPECT_TRUE(PreparesEveryNode(*config_));
  Start("PrologFlags=Alloc\n");
  EXPECT_TRUE(PreparesEveryNode(*config_));
  Start("PrologFlags=X11\n");
  EXPECT_FALSE(PreparesEveryNode(*config_));
  Start("");
  EXPECT_FALSE(PreparesEveryNode(*config_));
}

TEST_F(PreparedNodesTest, AScriptThatEndsEndsTheJobOnItsOtherNodes) {
  Start("PrologFlags=Contain\n");
  uint32_t id = Run(3);
  ASSERT_EQ(Job(id).nodes_size(), 3);
  Effects e = Report(id, Job(id).nodes(0), /*cleanup_follows=*/true);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETING);
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].job_id, id);
  EXPECT_EQ(e.signals[0].signal, SIGTERM);
  EXPECT_TRUE(e.signals[0].terminate);
  EXPECT_FALSE(e.signals[0].batch_only);
  EXPECT_EQ(e.signals[0].nodes, (std::vector<std::string>{Job(id).nodes(1), Job(id).nodes(2)}));
  // The first node's report ends it: the others are not waited for.
  Report(id, Job(id).nodes(0), /*cleanup_follows=*/false);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETED);
}

TEST_F(PreparedNodesTest, AJobThatEndsAtOnceEndsOnItsOtherNodesToo) {
  Start("PrologFlags=Contain\n");
  // The first node's only report (no early one): the job ends at once.
  uint32_t id = Run(2);
  Effects e = Report(id, Job(id).nodes(0), /*cleanup_follows=*/false);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETED);
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].nodes, (std::vector<std::string>{Job(id).nodes(1)}));
  EXPECT_TRUE(e.signals[0].terminate);
  // The first node's Prolog failed: requeued at once, the other node told.
  id = Run(2);
  const std::string other = Job(id).nodes(1);
  e = Report(id, Job(id).nodes(0), /*cleanup_follows=*/false, /*prolog_failed=*/true);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).priority(), 0u);  // Held, as Slurm holds it
  EXPECT_EQ(Job(id).reason(), "launch failed requeued held");
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].nodes, (std::vector<std::string>{other}));
}

TEST_F(PreparedNodesTest, ACancelSignalsEveryNodeOnce) {
  Start("PrologFlags=Alloc\n");
  uint32_t id = Run(2);
  wire::SignalJobsRequest req;
  req.add_job_ids(std::to_string(id));
  Effects e;
  core_->SignalJobs(req, Caller{0, 0, "root", "root", true}, kT0 + 2, e);
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].nodes.size(), 2u);
  EXPECT_TRUE(e.signals[0].terminate);
}

TEST_F(PreparedNodesTest, WithoutTheFlagsNothingMoreIsSent) {
  Start("");
  uint32_t id = Run(2);
  Effects e = Report(id, Job(id).nodes(0), /*cleanup_follows=*/true);
  EXPECT_TRUE(e.signals.empty());
  // A single-node job with the flags: nothing either.
  Start("PrologFlags=Contain\n");
  id = Run(1);
  e = Report(id, Job(id).nodes(0), /*cleanup_follows=*/true);
  EXPECT_TRUE(e.signals.empty());
}

TEST_F(PreparedNodesTest, APrologFailingOnAnotherNodeRequeuesTheJobAndDrainsThatNode) {
  Start("PrologFlags=Contain\n");
  uint32_t id = Run(2);
  const std::string first = Job(id).nodes(0);
  const std::string other = Job(id).nodes(1);
  Effects e = Report(id, other, /*cleanup_follows=*/false, /*prolog_failed=*/true);
  // The batch script may run already: killed on every node, as a requeue.
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETING);
  ASSERT_EQ(e.signals.size(), 1u);
  EXPECT_EQ(e.signals[0].signal, SIGKILL);
  EXPECT_EQ(e.signals[0].nodes, (std::vector<std::string>{first, other}));
  const NodeRuntime* drained = core_->nodes().Find(other);
  ASSERT_NE(drained, nullptr);
  EXPECT_TRUE(drained->drain);
  EXPECT_EQ(drained->reason, "Prolog error: no scratch");
  EXPECT_FALSE(core_->nodes().Find(first)->drain);
  // Once the first node is clean, the job is pending again, held until
  // released; its user may release it.
  Report(id, first, /*cleanup_follows=*/false);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).restart_count(), 1u);
  EXPECT_EQ(Job(id).priority(), 0u);
  EXPECT_EQ(Job(id).reason(), "launch failed requeued held");
  Result<wire::WhyResponse> why = core_->ExplainJob(id, kT0 + 5);
  ASSERT_TRUE(why.ok());
  ASSERT_GE(why->causes_size(), 1);
  EXPECT_EQ(why->causes(0).code(), "launch failed requeued held");
  EXPECT_TRUE(why->causes(0).reported());
  wire::UpdateJobRequest release;
  release.add_job_ids(std::to_string(id));
  release.set_action("release");
  Effects released;
  EXPECT_EQ(core_->UpdateJobs(release, alice_, kT0 + 6, released).errors_size(), 0);
  EXPECT_GT(Job(id).priority(), 0u);
  EXPECT_EQ(Job(id).reason(), "None");
  // A late report of the old run changes nothing.
  wire::JobExitedRequest late;
  late.set_job_id(id);
  late.set_node(other);
  late.set_prolog_failed(true);
  late.set_run(0);
  late.set_run_known(true);
  Effects none;
  EXPECT_TRUE(core_->ReportExit(late, kT0 + 6, none).ok());
  EXPECT_TRUE(none.signals.empty());
}

// A job that may not be requeued is cancelled when a Prolog fails, on its
// first node or another one, as Slurm cancels it.
TEST_F(PreparedNodesTest, APrologFailureCancelsAJobThatMayNotBeRequeued) {
  Start("PrologFlags=Contain\n");
  auto run_no_requeue = [&] {
    uint32_t id = SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_min_nodes(2);
      s.set_requeue(2);  // --no-requeue
      s.set_script("#!/bin/sh\nsleep 100\n");
    });
    Effects tick;
    core_->Tick(kT0 + 1, tick);
    EXPECT_EQ(Job(id).state(), wire::JOB_STATE_RUNNING);
    return id;
  };
  uint32_t id = run_no_requeue();
  ASSERT_FALSE(Job(id).requeue());
  Report(id, Job(id).nodes(0), /*cleanup_follows=*/false, /*prolog_failed=*/true);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(id).restart_count(), 0u);

  id = run_no_requeue();
  const std::string first = Job(id).nodes(0);
  Report(id, Job(id).nodes(1), /*cleanup_follows=*/false, /*prolog_failed=*/true);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_COMPLETING);
  Report(id, first, /*cleanup_follows=*/false);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_CANCELLED);
  EXPECT_EQ(Job(id).restart_count(), 0u);
}

// SchedulerParameters=nohold_on_prolog_fail: requeued, not held.
TEST_F(PreparedNodesTest, NoHoldOnPrologFailRequeuesWithoutTheHold) {
  Start("SchedulerParameters=nohold_on_prolog_fail\n");
  uint32_t id = Run(1);
  Report(id, Job(id).nodes(0), /*cleanup_follows=*/false, /*prolog_failed=*/true);
  EXPECT_EQ(Job(id).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).restart_count(), 1u);
  EXPECT_GT(Job(id).priority(), 0u);
  EXPECT_EQ(Job(id).reason(), "None");
}

}  // namespace
}  // namespace rota::ctld
