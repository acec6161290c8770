#include "sim/summary.h"

#include <gtest/gtest.h>

#include <sstream>

namespace rota::sim {
namespace {

TEST(SummaryTest, PercentilesUseNearestRank) {
  std::vector<double> v = {5, 1, 4, 2, 3, 6, 7, 8, 9, 10};
  EXPECT_EQ(Percentile(v, 95), 10);
  EXPECT_EQ(Percentile(v, 50), 5);
  EXPECT_EQ(Percentile(v, 10), 1);
  std::vector<double> empty;
  EXPECT_EQ(Percentile(empty, 99), 0);
  EXPECT_EQ(Median(v), 5.5);
  std::vector<double> odd = {3, 1, 2};
  EXPECT_EQ(Median(odd), 2);
}

JobOutcome Outcome(int64_t submit, int64_t start, int64_t end, uint32_t cpus) {
  JobOutcome o;
  o.submit = submit;
  o.start = start;
  o.end = end;
  o.cpus = cpus;
  return o;
}

TEST(SummaryTest, FiguresOnAKnownRun) {
  SimResult r;
  r.jobs = {Outcome(0, 0, 5, 2),        // Short job: bsld floor at tau, (0+5)/10 -> 1
            Outcome(10, 30, 50, 1),     // (20 + 20) / 20 = 2
            Outcome(20, 100, 104, 4)};  // (80 + 4) / 10 = 8.4
  JobOutcome refused;
  refused.refused = "too big";
  r.jobs.push_back(refused);
  r.pass_cpu_us = {1, 2, 3, 100};
  r.wall_s = 0.5;
  r.refused = 1;
  Summary s = Summarize(r, 4, 0);
  EXPECT_EQ(s.jobs, 3u);
  EXPECT_EQ(s.makespan_s, 104);
  EXPECT_NEAR(s.utilization, (10 + 20 + 16) / (4.0 * 104), 1e-12);
  EXPECT_NEAR(s.wait_mean_s, 100.0 / 3, 1e-12);
  EXPECT_EQ(s.wait_median_s, 20);
  EXPECT_EQ(s.wait_p95_s, 80);
  EXPECT_NEAR(s.bsld_mean, (1 + 2 + 8.4) / 3, 1e-12);
  EXPECT_EQ(s.pass_cpu_mean_us, 26.5);
  EXPECT_EQ(s.pass_cpu_p99_us, 100);
  EXPECT_EQ(s.sched_jobs_per_s, 6);

  std::ostringstream out;
  WriteSummary(out, s, true);
  EXPECT_NE(out.str().find("jobs 3\nutilization 0.1106\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("bsld_mean 3.800\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("sched_jobs_per_s 6\n"), std::string::npos) << out.str();
  std::ostringstream quiet;
  WriteSummary(quiet, s, false);
  EXPECT_EQ(quiet.str().find("pass_cpu"), std::string::npos);
}

TEST(SummaryTest, JobsCsvHasOneLinePerTraceJob) {
  SimResult r;
  r.jobs = {Outcome(0, 3, 5, 2)};
  r.jobs[0].trace_id = 42;
  r.jobs[0].nodes = 2;
  std::ostringstream out;
  WriteJobsCsv(out, r);
  EXPECT_EQ(out.str(),
            "id,submit,start,end,wait,nodes,cpus,gpus,state\n42,0,3,5,3,2,2,0,COMPLETED\n");
}

}  // namespace
}  // namespace rota::sim
