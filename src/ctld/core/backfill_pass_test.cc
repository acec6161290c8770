// The controller's backfill pass end to end: submissions in, decisions and
// the planned starts that squeue --start and scontrol show out.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/format/squeue_fields.h"
#include "cli/scontrol_show.h"
#include "ctld/core/core_test_fixture.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

// The fixture's kT0 is a multiple of bf_resolution (60 s); jobs are submitted
// at now_, which stays kT0 here.
class BackfillPassTest : public testing::CoreTest {
 protected:
  void Start(const std::string& scheduler) {
    CoreTest::Start("SlurmdTimeout=0\n" + scheduler +
                    "NodeName=n[1-2] CPUs=4 RealMemory=16000\n"
                    "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
                    "DefaultTime=1:00:00\n");
  }

  // sbatch -N nodes -n tasks [--time=minutes] (0: no --time), expected to
  // run `expected_minutes` (0: as long as its limit).
  uint32_t Submit(const std::string& name, uint32_t nodes, uint32_t tasks, int64_t minutes,
                  int64_t expected_minutes = 0) {
    return SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_expected_run_s(expected_minutes * 60);
      s.set_name(name);
      s.set_min_nodes(nodes);
      s.set_num_tasks(tasks);
      s.set_time_limit_s(minutes * 60);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  }

  std::string State(uint32_t id) { return std::string(model::JobStateName(Job(id).state())); }

  std::string SqueueStart() {
    std::vector<wire::JobRecord> jobs;
    for (const auto& j : *core_->PublishJobs()) jobs.push_back(*j);
    cli::format::SqueueOptions o;
    o.start = true;
    o.format = "%.4i %.8j %.2t %.19S %.6D %20Y %R";
    auto listing = cli::format::RenderSqueue(jobs, o, {kT0, 0});
    EXPECT_TRUE(listing.ok());
    return listing.ok() ? listing->text : "";
  }
};

TEST_F(BackfillPassTest, PlannedStartsAreShownAndShortJobsFillTheHole) {
  Start("");                                 // SchedulerType defaults to sched/backfill
  uint32_t a = Submit("running", 1, 4, 10);  // n1 until +10 min
  uint32_t b = Submit("wide", 2, 8, 60);     // both nodes: waits for a
  uint32_t c = Submit("short", 1, 4, 5);     // ends before a does: fills n2
  uint32_t d = Submit("notime", 1, 4, 0);    // DefaultTime (1 h) would delay b
  Effects e;
  core_->Tick(kT0, e);

  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(State(b), "PENDING");
  EXPECT_EQ(Job(b).reason(), "Resources");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  EXPECT_EQ(Job(b).sched_nodes(), "n[1-2]");
  EXPECT_EQ(State(c), "RUNNING");
  EXPECT_EQ(Job(c).nodes(0), "n2");
  EXPECT_EQ(State(d), "PENDING");
  EXPECT_EQ(Job(d).reason(), "Priority");
  EXPECT_EQ(Job(d).sched_start_time(), kT0 + 600 + 3600);

  // As squeue --start shows them (times in UTC here).
  EXPECT_EQ(SqueueStart(),
            "JOBI     NAME ST          START_TIME  NODES SCHEDNODES           NODELIST(REASON)\n"
            "   2     wide PD 2027-01-15T08:10:00      2 n[1-2]               (Resources)\n"
            "   4   notime PD 2027-01-15T09:10:00      1 n1                   (Priority)\n");
  std::string details = cli::FormatJobDetails(Job(b), kT0, false, false);
  EXPECT_NE(details.find("StartTime=2027-01-15T08:10:00 EndTime=2027-01-15T09:10:00"),
            std::string::npos)
      << details;
  EXPECT_NE(details.find("SchedNodeList=n[1-2]"), std::string::npos) << details;
}

TEST_F(BackfillPassTest, PlansWithExpectedRuntimesAndFallsBackToTheLimitWhenOutlived) {
  Start("SchedulerParameters=bf_resolution=1,rota_predict_runtime\n");
  uint32_t a = Submit("running", 1, 4, 60, 10);  // n1: limit +60 min, expected +10 min
  uint32_t b = Submit("wide", 2, 8, 60);         // both nodes
  uint32_t c = Submit("filler", 1, 4, 20);       // fits the hole only if a runs its full hour
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);  // a's expected end, not its limit
  EXPECT_EQ(State(c), "PENDING");                   // 20 minutes on n2 would delay b's reservation
  EXPECT_EQ(Job(a).end_time(), kT0 + 3600);         // The limit still ends it

  // a outlives its expected 10 minutes: it is planned to its limit again, and
  // the filler now fits before b.
  core_->Tick(kT0 + 660, e);
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 3600);
  EXPECT_EQ(State(c), "RUNNING");
}

TEST_F(BackfillPassTest, ExpectedRuntimesAreIgnoredWithoutRotaPredictRuntime) {
  // Jobs submitted while predictions were on keep their expectation; a site
  // that turned them off plans with the limits, as Slurm does.
  Start("SchedulerParameters=bf_resolution=1\n");
  uint32_t a = Submit("running", 1, 4, 60, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 3600);
}

TEST_F(BackfillPassTest, BuiltinSchedulerOnlyRunsTheMainPass) {
  Start("SchedulerType=sched/builtin\n");
  Submit("running", 1, 4, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  uint32_t c = Submit("short", 1, 4, 5);
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(b), "PENDING");
  EXPECT_EQ(Job(b).sched_start_time(), 0);
  EXPECT_EQ(State(c), "PENDING");  // FCFS: nothing passes the blocked head
  EXPECT_EQ(Job(c).reason(), "Priority");
}

// A policy handed to the core (rota-sim --policy) takes the configuration's
// place until the next reconfiguration, which goes back to the file's.
TEST_F(BackfillPassTest, AHandedPolicyReplacesTheConfigurationsUntilReconfigured) {
  Start("SchedulerType=sched/builtin\n");
  EXPECT_FALSE(core_->scheduling_policy().backfill);
  core_->UseSchedulingPolicy(sched::EasyPolicy(core_->scheduling_policy()));
  Submit("running", 1, 4, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  uint32_t c = Submit("short", 1, 4, 5);
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(b), "PENDING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);  // EASY's reservation for the head
  EXPECT_EQ(State(c), "RUNNING");                   // Backfilled before it
  EXPECT_EQ(core_->config().settings.scheduler_type, "sched/builtin");  // The file's, as loaded

  core_->Reconfigure(config_);
  EXPECT_FALSE(core_->scheduling_policy().backfill);
  uint32_t d = Submit("short2", 1, 4, 5);
  core_->Tick(kT0 + 1, e);
  EXPECT_EQ(State(d), "PENDING");  // FCFS again: nothing passes the blocked head
}

// The timers walk only the live jobs, and a job cancelled with a backfill plan
// on it stays live until a backfill pass clears the plan. With backfill off
// by then, none will: it must still go after MinJobAge.
TEST_F(BackfillPassTest, AJobCancelledWithAPlanIsPurgedEvenWithoutBackfill) {
  Start("SchedulerType=sched/builtin\nMinJobAge=300\n");
  core_->UseSchedulingPolicy(sched::EasyPolicy(core_->scheduling_policy()));
  Submit("running", 1, 4, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  Effects e;
  core_->Tick(kT0, e);
  ASSERT_EQ(Job(b).sched_start_time(), kT0 + 600);
  core_->Reconfigure(config_);  // Backfill off: FCFS
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids(std::to_string(b));
  core_->SignalJobs(cancel, alice_, kT0 + 1, e);
  ASSERT_EQ(State(b), "CANCELLED");
  EXPECT_NE(Job(b).sched_start_time(), 0);  // Nobody cleared the plan
  core_->Tick(kT0 + 300, e);
  EXPECT_NE(core_->FindJob(b), nullptr);
  core_->Tick(kT0 + 301, e);
  EXPECT_EQ(core_->FindJob(b), nullptr);
}

TEST_F(BackfillPassTest, BackfillRunsEveryIntervalAndTheMainPassStillStartsInOrder) {
  Start("SchedulerParameters=bf_interval=60\n");
  uint32_t a = Submit("running", 1, 4, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  // Submitted after the pass: the next backfill pass is a minute later.
  uint32_t c = Submit("short", 1, 4, 5);
  core_->Tick(kT0 + 1, e);
  EXPECT_EQ(State(c), "PENDING");
  ASSERT_TRUE(core_->NextWakeTime().has_value());
  EXPECT_LE(*core_->NextWakeTime(), kT0 + 60);
  core_->Tick(kT0 + 60, e);
  EXPECT_EQ(State(c), "RUNNING");
  // The head job starts through the main pass once a is gone.
  ASSERT_TRUE(core_->JobExited(a, 0, kT0 + 300, e).ok());
  ASSERT_TRUE(core_->JobExited(c, 0, kT0 + 360, e).ok());
  core_->Tick(kT0 + 360, e);
  EXPECT_EQ(State(a), "COMPLETED");
  EXPECT_EQ(State(c), "COMPLETED");
  EXPECT_EQ(State(b), "RUNNING") << Job(b).reason();
  EXPECT_EQ(Job(b).sched_start_time(), 0);
  EXPECT_EQ(Job(b).sched_nodes(), "");
}

// bf_max_time=1 with a fake clock that moves a second at every read: each
// pass has time to try one job only.
TEST_F(BackfillPassTest, MaxTimeCutsEveryPassAfterOneJobAndContinueResumesBelow) {
  Start("SchedulerParameters=bf_max_time=1,bf_continue\n");
  int64_t clock = 0;
  core_->sched_stats().SetClock([&clock] { return clock += 1'000'000; });
  uint32_t a = Submit("running", 1, 4, 10);  // n1 until +10 min
  uint32_t b = Submit("wide", 2, 8, 60);     // both nodes: reserved at +10 min
  uint32_t c = Submit("half1", 1, 2, 5);     // half of n2, done before b
  uint32_t d = Submit("half2", 1, 2, 5);     // the other half
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(a), "RUNNING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  EXPECT_EQ(State(c), "PENDING");  // Cut before it was tried
  const BackfillPassStats& stats = core_->sched_stats().backfill();
  EXPECT_EQ(stats.last_depth, 1u);
  EXPECT_EQ(stats.last_depth_try, 1u);
  EXPECT_EQ(stats.last_queue_length, 3u);

  core_->Tick(kT0 + 30, e);  // Resumes below b, whose reservation stays
  EXPECT_EQ(State(c), "RUNNING");
  EXPECT_EQ(State(d), "PENDING");
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  EXPECT_EQ(stats.last_depth, 2u);  // b carried, c tried
  EXPECT_EQ(stats.last_depth_try, 1u);

  core_->Tick(kT0 + 60, e);  // Below c: d, the last one, ends this round
  EXPECT_EQ(State(d), "RUNNING");
  EXPECT_EQ(stats.last_depth_try, 1u);

  core_->Tick(kT0 + 90, e);  // From the top again
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  EXPECT_EQ(stats.last_depth_try, 1u);
  EXPECT_EQ(stats.last_depth, 1u);
}

TEST_F(BackfillPassTest, MaxTimeWithoutContinueTriesTheSameHeadEveryPass) {
  Start("SchedulerParameters=bf_max_time=1\n");
  int64_t clock = 0;
  core_->sched_stats().SetClock([&clock] { return clock += 1'000'000; });
  Submit("running", 1, 4, 10);
  uint32_t b = Submit("wide", 2, 8, 60);
  uint32_t c = Submit("half1", 1, 2, 5);
  Effects e;
  for (int64_t t = 0; t <= 90; t += 30) core_->Tick(kT0 + t, e);
  EXPECT_EQ(Job(b).sched_start_time(), kT0 + 600);
  EXPECT_EQ(State(c), "PENDING");  // Never reached
  EXPECT_EQ(core_->sched_stats().backfill().cycles, 4u);
}

TEST_F(BackfillPassTest, WithoutAClockThePassIsNeverCut) {
  Start("SchedulerParameters=bf_max_time=1\n");
  Submit("running", 1, 4, 10);
  Submit("wide", 2, 8, 60);
  uint32_t c = Submit("half1", 1, 2, 5);
  Effects e;
  core_->Tick(kT0, e);
  EXPECT_EQ(State(c), "RUNNING");
  EXPECT_EQ(core_->sched_stats().backfill().last_depth_try, 2u);
}

}  // namespace
}  // namespace rota::ctld
