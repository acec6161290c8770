// Runtime predictions (SchedulerParameters=rota_predict_runtime) and the
// measuring of planned starts, through the controller core.
#include "ctld/core/runtime_forecasts.h"

#include <gtest/gtest.h>

#include <string>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

class RuntimeForecastsTest : public testing::CoreTest {
 protected:
  void Start(const std::string& scheduler_parameters) {
    CoreTest::Start("SlurmdTimeout=0\nMinJobAge=3600\n" + scheduler_parameters +
                    "NodeName=n1 CPUs=4 RealMemory=16000\n"
                    "PartitionName=batch Nodes=n1 Default=YES MaxTime=1-00:00:00\n");
  }
  // A job of the whole node as `who` with a limit of `minutes`.
  uint32_t Submit(const Caller& who, int64_t minutes) {
    return SubmitOkAs(who, [&](wire::JobSpec& s) {
      s.set_num_tasks(4);
      s.set_time_limit_s(minutes * 60);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  }
  void Exit(uint32_t id, int64_t at) {
    Effects e;
    ASSERT_TRUE(core_->JobExited(id, 0, at, e).ok());
  }
};

TEST_F(RuntimeForecastsTest, AJobIsPlannedWithItsUsersRecentRuntimes) {
  Start("SchedulerParameters=rota_predict_runtime\n");
  uint32_t first = Submit(alice_, 60);
  EXPECT_EQ(Job(first).spec().expected_run_s(), 0);  // Nothing known of alice yet
  Tick();
  ASSERT_EQ(Job(first).state(), wire::JOB_STATE_RUNNING);
  now_ += 600;
  Exit(first, now_);  // Ran 10 minutes of its hour

  uint32_t second = Submit(alice_, 60);
  EXPECT_EQ(Job(second).spec().expected_run_s(), 600);
  uint32_t bobs = Submit(bob_, 60);
  EXPECT_EQ(Job(bobs).spec().expected_run_s(), 0);               // Another user
  EXPECT_EQ(Job(Submit(alice_, 5)).spec().expected_run_s(), 0);  // Limit below it: the limit
  Tick();
  ASSERT_EQ(Job(second).state(), wire::JOB_STATE_RUNNING);
  // The running job is planned to end at its prediction, not its limit: the
  // next whole-node job is planned 10 minutes on, not an hour.
  ASSERT_EQ(Job(bobs).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(bobs).sched_start_time(), now_ + 600);

  // rota why says so: the release awaited is a predicted end, and a job of
  // alice's is planned with her runtime.
  Result<wire::WhyResponse> why = core_->ExplainJob(bobs, now_);
  ASSERT_TRUE(why.ok());
  ASSERT_EQ(why->releases_size(), 1);
  EXPECT_TRUE(why->releases(0).predicted());
  EXPECT_EQ(why->releases(0).time(), now_ + 600);
  EXPECT_EQ(why->predicted_run_s(), 0);
  EXPECT_EQ(why->start_p50(), 0);  // Nothing measured yet: no range
  bool said = false;
  for (const wire::WhyCause& c : why->causes()) {
    said = said || c.text().find("when job " + std::to_string(second) + " is predicted to end") !=
                       std::string::npos;
  }
  EXPECT_TRUE(said);
  why = core_->ExplainJob(Submit(alice_, 60), now_);
  ASSERT_TRUE(why.ok());
  EXPECT_EQ(why->predicted_run_s(), 600);
}

TEST_F(RuntimeForecastsTest, OffByDefault) {
  Start("");
  uint32_t first = Submit(alice_, 60);
  Tick();
  now_ += 600;
  Exit(first, now_);
  EXPECT_EQ(Job(Submit(alice_, 60)).spec().expected_run_s(), 0);
}

TEST_F(RuntimeForecastsTest, ARestartedControllerLearnsFromTheEndedJobsItKept) {
  Start("SchedulerParameters=rota_predict_runtime\n");
  uint32_t first = Submit(alice_, 60);
  Tick();
  now_ += 900;
  Exit(first, now_);
  wire::StateSnapshot snapshot = core_->Snapshot();
  core_ = std::make_unique<ControllerCore>(config_);
  core_->Restore(&snapshot, {});
  EXPECT_EQ(Job(Submit(alice_, 60)).spec().expected_run_s(), 900);
}

TEST_F(RuntimeForecastsTest, FirstPlannedStartsAreMeasuredWhenJobsStart) {
  Start("");
  uint32_t running = Submit(alice_, 60);
  uint32_t waiting = Submit(bob_, 60);
  Tick();
  ASSERT_EQ(Job(waiting).state(), wire::JOB_STATE_PENDING);
  EXPECT_EQ(Job(waiting).first_planned_start(), kT0 + 3600);
  EXPECT_EQ(Job(waiting).first_planned_at(), kT0);
  now_ += 60;
  Tick();  // A later plan does not replace the first
  EXPECT_EQ(Job(waiting).first_planned_at(), kT0);
  EXPECT_EQ(core_->StartForecastRatios().samples(), 0u);

  now_ = kT0 + 600;
  Exit(running, now_);
  Tick();
  ASSERT_EQ(Job(waiting).state(), wire::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(waiting).first_planned_at(), 0);  // Measured, and cleared for a requeue
  wire::StartForecastRatios r = core_->StartForecastRatios();
  EXPECT_EQ(r.samples(), 1u);
  EXPECT_DOUBLE_EQ(r.p50(), (600.0 + 60) / (3600 + 60));
}

TEST_F(RuntimeForecastsTest, ForecastStartReservesEveryJobAhead) {
  // Under EASY only the first waiting job has a reservation; the forecast
  // plans them all, as squeue --start shows under Slurm's default.
  Start("SchedulerParameters=bf_job_part_count_reserve=1\n");
  uint32_t running = Submit(alice_, 60);
  uint32_t second = Submit(bob_, 120);
  uint32_t third = Submit(alice_, 60);
  Tick();
  EXPECT_EQ(core_->ForecastStart(second, now_), kT0 + 3600);
  EXPECT_EQ(core_->ForecastStart(third, now_), kT0 + 3600 + 7200);
  EXPECT_EQ(core_->ForecastStart(running, now_), std::nullopt);  // Not waiting
  EXPECT_EQ(core_->ForecastStart(999, now_), std::nullopt);
}

TEST(RuntimeForecasts, OnlyRunsThatEndedByThemselvesOrAtTheirLimitCount) {
  RuntimeForecasts f;
  wire::JobRecord job;
  job.mutable_spec()->set_uid(7);
  job.set_start_time(1000);
  job.set_end_time(1300);
  f.RunEnded(job, wire::JOB_STATE_CANCELLED);
  f.RunEnded(job, wire::JOB_STATE_REQUEUED);
  f.RunEnded(job, wire::JOB_STATE_PREEMPTED);
  EXPECT_EQ(f.PlannedRuntime(7, 3600), 0);
  f.RunEnded(job, wire::JOB_STATE_TIMEOUT);
  EXPECT_EQ(f.PlannedRuntime(7, 3600), 300);
  EXPECT_EQ(f.PlannedRuntime(7, 300), 0);  // Not shorter than the limit
  EXPECT_EQ(f.PlannedRuntime(7, -1), 0);   // No limit: planned as one
  job.set_start_time(0);                   // Never ran
  f.RunEnded(job, wire::JOB_STATE_FAILED);
  EXPECT_EQ(f.PlannedRuntime(7, 3600), 300);
}

}  // namespace
}  // namespace rota::ctld
