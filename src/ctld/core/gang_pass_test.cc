// Gang scheduling in the controller core with a fake clock: jobs of an
// OverSubscribe=FORCE partition share cores and take turns every
// SchedulerTimeSlice (PreemptMode=GANG), and SUSPEND,GANG preemption.
#include <gtest/gtest.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "cli/format/squeue_fields.h"
#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

class GangPassTest : public testing::CoreTest {
 protected:
  void Start(const std::string& conf) {
    CoreTest::Start("SlurmdTimeout=0\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n" +
                    conf);
  }

  uint32_t Submit(const std::string& partition, uint32_t cpus = 4) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_name("j" + std::to_string(next_name_++));
      s.set_partition(partition);
      s.set_cpus_per_task(cpus);
      s.set_time_limit_s(3600);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  }

  // The node's reports that the job's script ended and that it is clean.
  void Exited(uint32_t id) {
    const std::string node = Job(id).nodes(0);
    for (bool early : {true, false}) {
      wire::JobExitedRequest req;
      req.set_job_id(id);
      req.set_wait_status(0);
      req.set_node(node);
      req.set_cleanup_follows(early);
      Effects e;
      ASSERT_TRUE(core_->ReportExit(req, now_, e).ok());
    }
  }

  std::string State(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }

  static bool Signalled(const Effects& e, uint32_t id, int signal) {
    for (const SignalJob& s : e.signals) {
      if (s.job_id == id && s.signal == signal) return true;
    }
    return false;
  }
  static bool Launched(const Effects& e, uint32_t id) {
    for (const LaunchJob& l : e.launches) {
      if (l.job->job_id() == id) return true;
    }
    return false;
  }

  std::string Squeue() {
    std::vector<wire::JobRecord> jobs;
    for (const auto& j : *core_->PublishJobs()) jobs.push_back(*j);
    cli::format::SqueueOptions o;
    o.format = "%.5i %.2t %.6M %R";
    auto listing = cli::format::RenderSqueue(jobs, o, {now_, 0});
    EXPECT_TRUE(listing.ok());
    return listing.ok() ? listing->text : "";
  }

  int next_name_ = 1;
};

constexpr char kForce2[] =
    "PreemptMode=GANG\nSchedulerTimeSlice=30\n"
    "NodeName=n1 CPUs=4 RealMemory=16000\n"
    "PartitionName=shared Nodes=n1 Default=YES OverSubscribe=FORCE:2\n";

TEST_F(GangPassTest, TwoJobsOnOneNodeTakeTurnsEverySlice) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Effects e = Tick();
  // Both have the node's four cores; b waits for its turn, not yet launched.
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "SUSPENDED");
  EXPECT_TRUE(Launched(e, a));
  EXPECT_FALSE(Launched(e, b));
  EXPECT_EQ(Job(a).gang_row(), 1u);
  EXPECT_EQ(Job(b).gang_row(), 2u);
  ASSERT_TRUE(core_->NextWakeTime().has_value());
  EXPECT_LE(*core_->NextWakeTime(), kT0 + 30);
  const int64_t a_end = Job(a).end_time();

  now_ = kT0 + 10;
  Tick();  // Mid-slice: nothing changes
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "SUSPENDED");

  now_ = kT0 + 30;  // b's turn: a stops, b's script starts
  e = Tick();
  EXPECT_EQ(State(a), "SUSPENDED");
  EXPECT_EQ(State(b), "RUNNING");
  EXPECT_TRUE(Signalled(e, a, SIGSTOP));
  EXPECT_TRUE(Launched(e, b));
  EXPECT_FALSE(Signalled(e, b, SIGCONT));
  EXPECT_EQ(Job(b).start_time(), kT0 + 30);
  EXPECT_EQ(Squeue(),
            "JOBID ST   TIME NODELIST(REASON)\n"
            "    2  R   0:00 n1\n"
            "    1  S   0:30 n1\n");

  now_ = kT0 + 60;  // a's turn again: SIGCONT, and its limit moves by 30 s
  e = Tick();
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "SUSPENDED");
  EXPECT_TRUE(Signalled(e, a, SIGCONT));
  EXPECT_TRUE(Signalled(e, b, SIGSTOP));
  EXPECT_EQ(Job(a).end_time(), a_end + 30);

  now_ = kT0 + 90;
  Tick();
  EXPECT_EQ(State(a), "SUSPENDED");
  EXPECT_EQ(State(b), "RUNNING");
}

// The wall clock stepped back an hour mid-slice: the turns go on every 30 s
// of elapsed time, not an hour later (ControllerCore::ClockStepped).
TEST_F(GangPassTest, TurnsKeepTheirLengthAcrossAClockStep) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Tick();
  ASSERT_EQ(State(a), "RUNNING");
  now_ = kT0 + 10 - 3600;
  Effects stepped;
  core_->ClockStepped(-3600, now_, stepped);
  Tick();
  EXPECT_EQ(State(a), "RUNNING");  // 20 s of its turn left
  now_ = kT0 + 30 - 3600;
  Tick();
  EXPECT_EQ(State(a), "SUSPENDED");
  EXPECT_EQ(State(b), "RUNNING");
}

TEST_F(GangPassTest, AJobEndingLetsTheOtherRunWithoutSlices) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Tick();
  now_ = kT0 + 5;
  Exited(a);
  Effects e = Tick();
  EXPECT_EQ(State(b), "RUNNING");  // At once, not at the end of a's slice
  EXPECT_TRUE(Launched(e, b));
  for (now_ = kT0 + 30; now_ <= kT0 + 120; now_ += 30) {
    e = Tick();
    EXPECT_EQ(State(b), "RUNNING") << now_ - kT0;
    EXPECT_FALSE(Signalled(e, b, SIGSTOP));
  }
  EXPECT_FALSE(core_->NextWakeTime().has_value() && *core_->NextWakeTime() <= kT0 + 150);
}

TEST_F(GangPassTest, NoMoreJobsShareACoreThanForceAllows) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  uint32_t c = Submit("shared");
  Tick();
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "SUSPENDED");
  EXPECT_EQ(State(c), "PENDING");
  EXPECT_EQ(Job(c).reason(), "Resources");
  // Half-node jobs: one more fits each row's free half... none here, both
  // rows hold the whole node.
  uint32_t d = Submit("shared", 2);
  Tick();
  EXPECT_EQ(State(d), "PENDING");
}

TEST_F(GangPassTest, JobsThatShareNothingAllRun) {
  Start(kForce2);
  uint32_t a = Submit("shared", 2);
  uint32_t b = Submit("shared", 2);
  Tick();
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "RUNNING");
  EXPECT_EQ(Job(b).gang_row(), 1u);  // Both fit row 0
  now_ = kT0 + 30;
  Tick();
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "RUNNING");
}

TEST_F(GangPassTest, WithoutGangForceSharesNothing) {
  Start(
      "NodeName=n1 CPUs=4 RealMemory=16000\n"
      "PartitionName=shared Nodes=n1 Default=YES OverSubscribe=FORCE:2\n");
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Tick();
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "PENDING");
  EXPECT_EQ(Job(a).gang_row(), 0u);
}

TEST_F(GangPassTest, SuspendGangPreemptionSuspendsTheLowerTierUntilThePreemptorEnds) {
  Start(
      "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n"
      "NodeName=n1 CPUs=4 RealMemory=16000\n"
      "PartitionName=low Nodes=n1 Default=YES PriorityTier=1\n"
      "PartitionName=high Nodes=n1 PriorityTier=2\n");
  uint32_t low = Submit("low");
  Tick();
  ASSERT_EQ(State(low), "RUNNING");
  now_ = kT0 + 10;
  uint32_t high = Submit("high");
  Effects e = Tick();
  EXPECT_EQ(State(low), "SUSPENDED");
  EXPECT_TRUE(Signalled(e, low, SIGSTOP));
  Tick();
  EXPECT_EQ(State(high), "RUNNING");
  now_ = kT0 + 100;
  Exited(high);
  e = Tick();
  EXPECT_EQ(State(low), "RUNNING");
  EXPECT_TRUE(Signalled(e, low, SIGCONT));
}

TEST_F(GangPassTest, AJobCancelledBeforeItsFirstTurnEndsWithoutANode) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Tick();
  ASSERT_TRUE(Job(b).gang_launch_pending());
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids(std::to_string(b));
  Effects e;
  core_->SignalJobs(cancel, Caller{1000, 1000, "alice", "alice", false}, now_, e);
  Tick();
  EXPECT_EQ(State(b), "CANCELLED");  // No node ever had it: nothing to wait for
  EXPECT_EQ(State(a), "RUNNING");
  now_ = kT0 + 30;
  e = Tick();
  EXPECT_EQ(State(a), "RUNNING");  // Alone again: no turns
  EXPECT_FALSE(Signalled(e, a, SIGSTOP));
}

TEST_F(GangPassTest, RowsSurviveARestart) {
  Start(kForce2);
  uint32_t a = Submit("shared");
  uint32_t b = Submit("shared");
  Tick();
  wire::StateSnapshot snapshot = core_->Snapshot();
  core_ = std::make_unique<ControllerCore>(config_);
  core_->Restore(&snapshot, {});
  Effects e;
  ASSERT_TRUE(core_->NodeRegistered("n1", kT0, now_, e).ok());
  now_ = kT0 + 5;
  Tick();  // A new slice begins with the running job's row
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "SUSPENDED");
  now_ = kT0 + 35;
  e = Tick();
  EXPECT_EQ(State(a), "SUSPENDED");
  EXPECT_EQ(State(b), "RUNNING");
  EXPECT_TRUE(Launched(e, b));
}

}  // namespace
}  // namespace rota::ctld
