// What the main and backfill passes of ControllerCore count for sdiag.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ctld/core/core_test_fixture.h"

namespace rota::ctld {
namespace {

class SchedStatsPassTest : public testing::CoreTest {};

TEST_F(SchedStatsPassTest, PassesAndJobsAreCounted) {
  Start(
      "SlurmdTimeout=0\n"
      "NodeName=n[1-2] CPUs=4 RealMemory=16000\n"
      "PartitionName=batch Nodes=n[1-2] Default=YES MaxTime=1-00:00:00 "
      "DefaultTime=1:00:00\n");
  ControllerCore& core = *core_;
  int64_t clock = 0;
  core.sched_stats().SetClock([&clock] { return clock += 7; });  // 7 µs between reads
  Effects e;
  auto submit = [&](uint32_t nodes, uint32_t tasks, int64_t minutes) {
    SubmitOkAs(alice_, [&](wire::JobSpec& s) {
      s.set_min_nodes(nodes);
      s.set_num_tasks(tasks);
      s.set_time_limit_s(minutes * 60);
      s.set_script("#!/bin/sh\ntrue\n");
    });
  };
  submit(1, 4, 10);  // Starts on n1 in the main pass
  submit(2, 8, 60);  // Waits for it
  submit(1, 4, 5);   // Backfilled onto n2
  core.Tick(kT0, e);

  const SchedStats& s = core.sched_stats();
  EXPECT_EQ(s.jobs_submitted(), 3u);
  EXPECT_EQ(s.jobs_started(), 2u);
  EXPECT_EQ(s.main().cycles, 1u);
  EXPECT_EQ(s.main().last_cycle_us, 7u);
  EXPECT_EQ(s.main().last_queue_length, 3u);
  EXPECT_EQ(s.backfill().cycles, 1u);
  EXPECT_EQ(s.backfill().last_cycle_when, kT0);
  EXPECT_EQ(s.backfill().last_cycle_us, 14u);     // One more read: bf_max_time, between its jobs
  EXPECT_EQ(s.backfill().last_queue_length, 2u);  // The two the main pass left waiting
  EXPECT_EQ(s.backfill().last_depth, 2u);
  EXPECT_EQ(s.backfill().last_depth_try, 2u);
  EXPECT_EQ(s.backfill().backfilled_jobs, 1u);
  EXPECT_GE(s.backfill().last_table_size, 1u);  // The wide job's reservation

  // A cancelled pending job counts as canceled.
  wire::SignalJobsRequest cancel;
  cancel.add_job_ids("2");
  core.SignalJobs(cancel, alice_, kT0 + 1, e);
  EXPECT_EQ(s.jobs_canceled(), 1u);
}

}  // namespace
}  // namespace rota::ctld
