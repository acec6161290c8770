#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/sim_cluster.h"
#include "sim/summary.h"
#include "sim/synthetic_trace.h"

namespace rota::sim {
namespace {

std::shared_ptr<const conf::ClusterConfig> Cluster(UniformCluster shape) {
  auto config = LoadConfigText(UniformSlurmConf(shape), UniformGresConf(shape));
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.value_or(nullptr);
}

TraceJob Job(uint64_t id, int64_t submit, uint32_t procs, int64_t runtime, int64_t requested) {
  TraceJob j;
  j.id = id;
  j.submit_s = submit;
  j.processors = procs;
  j.runtime_s = runtime;
  j.requested_s = requested;
  j.user = 1;
  j.group = 1;
  return j;
}

SimResult Replay(const conf::ClusterConfig& config, const std::vector<TraceJob>& jobs,
                 Estimates estimates = Estimates::kUser, Policy policy = Policy::kFcfs) {
  SimOptions options;
  options.estimates = estimates;
  options.policy = policy;
  return Simulator(config, options).Run(jobs);
}

// The same trace under EASY backfill: job 2 is reserved for when job 1's
// limit says it ends (200); job 3 (limit 60) fits in the hole at once and
// ends at 50; job 2 still starts at 100, when job 1 actually ends. A job 3
// asking for 300 s would delay the reservation: it waits for job 2.
TEST(SimulatorTest, EasyBackfillFillsTheHoleWithoutDelayingTheHead) {
  auto config = Cluster({2, 1, 0});
  ASSERT_NE(config, nullptr);
  for (Policy policy : {Policy::kEasy, Policy::kConservative}) {
    SimOptions options;
    options.policy = policy;
    SimResult r = Simulator(*config, options)
                      .Run({Job(1, 0, 1, 100, 200), Job(2, 10, 2, 50, 100), Job(3, 20, 1, 30, 60)});
    ASSERT_EQ(r.jobs.size(), 3u);
    EXPECT_EQ(r.jobs[2].start, 20);
    EXPECT_EQ(r.jobs[2].end, 50);
    EXPECT_EQ(r.jobs[1].start, 100);
    r = Simulator(*config, options)
            .Run({Job(1, 0, 1, 100, 200), Job(2, 10, 2, 50, 100), Job(3, 20, 1, 30, 300)});
    EXPECT_EQ(r.jobs[1].start, 100);
    EXPECT_EQ(r.jobs[2].start, 150);
  }
}

// Forecasts at submission: on one node, job 1 (limit 200 s) runs 100 s;
// job 2, submitted at 10, is forecast to start when job 1's limit says
// (200), and starts at 100. With the user's predicted runtime (job 0 of the
// same user ran 100 s) the forecast is job 1's prediction, 100 s, and right.
TEST(SimulatorTest, ForecastsAtSubmissionFollowThePlan) {
  auto config = Cluster({1, 1, 0});
  ASSERT_NE(config, nullptr);
  const std::vector<TraceJob> trace = {Job(10, 0, 1, 100, 200), Job(11, 100, 1, 100, 200),
                                       Job(12, 110, 1, 50, 200)};
  for (Estimates estimates : {Estimates::kUser, Estimates::kPredicted}) {
    SimOptions options;
    options.policy = Policy::kEasy;
    options.estimates = estimates;
    options.forecasts = true;
    SimResult r = Simulator(*config, options).Run(trace);
    ASSERT_EQ(r.jobs.size(), 3u);
    EXPECT_EQ(r.jobs[0].forecast, -1);  // Started at once
    EXPECT_EQ(r.jobs[1].forecast, -1);
    EXPECT_EQ(r.jobs[2].start, 200);
    EXPECT_EQ(r.jobs[2].forecast, estimates == Estimates::kUser ? 300 : 200);
    EXPECT_EQ(r.jobs[2].forecast_p50, -1);  // Too few forecasts measured for a range
    Summary s = Summarize(r, 1, 0);
    EXPECT_EQ(s.forecasts, 1u);
    EXPECT_EQ(s.forecast_mae_s, estimates == Estimates::kUser ? 100 : 0);
    EXPECT_EQ(s.forecast_within_15min, 1.0);
    EXPECT_EQ(s.forecast_ranges, 0u);
  }
}

// Two minimal traces on 100 one-CPU nodes where textbook EASY backfill
// (Lifka; Mu'alem and Feitelson) fixes every start; conservative backfill
// gives the same starts.
//
// The head's "extra" processors: at 100 job 1 ends and ten nodes are idle;
// head job 4 (80) waits for job 2's 80 nodes (1000), so ten nodes free then
// are more than it needs. Job 5 (10, past 1000) starts at 100 on the idle
// ones, which the reservation leaves alone.
TEST(SimulatorTest, TheHeadsExtraProcessorsAreBackfilledAsInTextbookEasy) {
  auto config = Cluster({100, 1, 0});
  ASSERT_NE(config, nullptr);
  for (Policy policy : {Policy::kEasy, Policy::kConservative}) {
    SimResult r =
        Replay(*config,
               {Job(1, 0, 10, 100, 100), Job(2, 0, 80, 1000, 1000), Job(3, 0, 10, 5000, 5000),
                Job(4, 50, 80, 1000, 1000), Job(5, 60, 10, 2000, 2000)},
               Estimates::kUser, policy);
    ASSERT_EQ(r.jobs.size(), 5u);
    EXPECT_EQ(r.jobs[3].start, 1000) << static_cast<int>(policy);
    EXPECT_EQ(r.jobs[4].start, 100) << static_cast<int>(policy);
  }
}

// A time limit reached in the second a job is submitted: job 1 (limit 1000,
// would run 2000) is killed at 1000, when job 5 arrives. Its nodes are free
// for that second: job 3 starts at 1000, job 4 (all 100 nodes) becomes the
// head with no processors to spare, and job 5 (five nodes for 10000 s) waits
// for job 4 to end at 6000 instead of jumping ahead of it.
TEST(SimulatorTest, AJobKilledAtItsLimitFreesItsNodesBeforeThatSecondsPass) {
  auto config = Cluster({100, 1, 0});
  ASSERT_NE(config, nullptr);
  for (Policy policy : {Policy::kEasy, Policy::kConservative}) {
    SimResult r =
        Replay(*config,
               {Job(1, 0, 10, 2000, 1000), Job(2, 0, 85, 5000, 5000), Job(3, 10, 10, 1000, 1000),
                Job(4, 20, 100, 1000, 1000), Job(5, 1000, 5, 10000, 10000)},
               Estimates::kUser, policy);
    ASSERT_EQ(r.jobs.size(), 5u);
    EXPECT_TRUE(r.jobs[0].timed_out);
    EXPECT_EQ(r.jobs[0].end, 1000);
    EXPECT_EQ(r.jobs[2].start, 1000) << static_cast<int>(policy);
    EXPECT_EQ(r.jobs[3].start, 5000) << static_cast<int>(policy);
    EXPECT_EQ(r.jobs[4].start, 6000) << static_cast<int>(policy);
  }
}

// Two one-CPU nodes. Worked out by hand: job 1 runs 0-100 on one node; job 2
// needs both, so it waits for job 1 (100-150); FCFS keeps job 3 behind job 2
// although a node is free meanwhile (150-180).
TEST(SimulatorTest, FcfsOnTwoNodesMatchesTheHandWorkedAnswer) {
  auto config = Cluster({2, 1, 0});
  ASSERT_NE(config, nullptr);
  SimResult r =
      Replay(*config, {Job(1, 0, 1, 100, 200), Job(2, 10, 2, 50, 100), Job(3, 20, 1, 30, 60)});
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.refused, 0u);
  EXPECT_EQ(r.never_started, 0u);
  EXPECT_EQ(r.timed_out, 0u);
  const JobOutcome& a = r.jobs[0];
  const JobOutcome& b = r.jobs[1];
  const JobOutcome& c = r.jobs[2];
  EXPECT_EQ(a.start, 0);
  EXPECT_EQ(a.end, 100);
  EXPECT_EQ(b.submit, 10);
  EXPECT_EQ(b.start, 100);
  EXPECT_EQ(b.end, 150);
  EXPECT_EQ(b.nodes, 2u);
  EXPECT_EQ(b.cpus, 2u);
  EXPECT_EQ(c.start, 150);
  EXPECT_EQ(c.end, 180);

  Summary s = Summarize(r, 2, 0);
  EXPECT_EQ(s.jobs, 3u);
  EXPECT_EQ(s.makespan_s, 180);
  EXPECT_NEAR(s.utilization, 230.0 / 360.0, 1e-9);
  EXPECT_NEAR(s.wait_mean_s, (0 + 90 + 130) / 3.0, 1e-9);
  EXPECT_NEAR(s.wait_median_s, 90, 1e-9);
  EXPECT_NEAR(s.bsld_mean, (1 + 140.0 / 50 + 160.0 / 30) / 3, 1e-9);
}

TEST(SimulatorTest, JobsOverTheirLimitEndAsTimeoutsAtTheLimit) {
  auto config = Cluster({1, 1, 0});
  ASSERT_NE(config, nullptr);
  // Job 1 asks for 50 s and would run 100: killed at 50, job 2 starts then.
  SimResult r = Replay(*config, {Job(1, 0, 1, 100, 50), Job(2, 0, 1, 10, 60)});
  EXPECT_TRUE(r.jobs[0].timed_out);
  EXPECT_EQ(r.jobs[0].end, 50);
  EXPECT_FALSE(r.jobs[1].timed_out);
  EXPECT_EQ(r.jobs[1].start, 50);
  EXPECT_EQ(r.jobs[1].end, 60);
  EXPECT_EQ(r.timed_out, 1u);

  // With exact estimates the limit is the runtime: no timeout.
  SimResult exact = Replay(*config, {Job(1, 0, 1, 100, 50)}, Estimates::kExact);
  EXPECT_FALSE(exact.jobs[0].timed_out);
  EXPECT_EQ(exact.jobs[0].end, 100);
}

// Predictions from a list that are the real runtimes plan every job as exact
// estimates do: the same starts, though the limits stay the users' (longer).
// The same list without --estimates predicted is not used: user estimates.
TEST(SimulatorTest, ListedPredictionsArePlannedWith) {
  auto config = Cluster({16, 2, 0});
  ASSERT_NE(config, nullptr);
  std::vector<TraceJob> jobs = GenerateTrace({300, 32, 0.95, 5});
  RuntimePredictions exact;
  for (TraceJob& j : jobs) {
    j.requested_s = std::max(j.requested_s, j.runtime_s) * 3;
    exact[j.id] = j.runtime_s;
  }
  auto starts = [&](Estimates estimates, const RuntimePredictions* predictions) {
    SimOptions options;
    options.policy = Policy::kConservative;
    options.estimates = estimates;
    options.predictions = predictions;
    std::vector<int64_t> out;
    for (const JobOutcome& o : Simulator(*config, options).Run(jobs).jobs) out.push_back(o.start);
    return out;
  };
  const std::vector<int64_t> with_exact = starts(Estimates::kExact, nullptr);
  const std::vector<int64_t> with_user = starts(Estimates::kUser, nullptr);
  ASSERT_NE(with_exact, with_user);  // Else the list could not show
  EXPECT_EQ(starts(Estimates::kPredicted, &exact), with_exact);
  EXPECT_EQ(starts(Estimates::kUser, &exact), with_user);
}

TEST(SimulatorTest, JobsBiggerThanTheClusterAreRefused) {
  auto config = Cluster({2, 1, 0});
  ASSERT_NE(config, nullptr);
  SimResult r = Replay(*config, {Job(1, 0, 3, 10, 10), Job(2, 5, 1, 10, 10)});
  EXPECT_EQ(r.refused, 1u);
  EXPECT_FALSE(r.jobs[0].refused.empty());
  EXPECT_EQ(r.jobs[0].start, -1);
  EXPECT_EQ(r.jobs[1].start, 5);
  EXPECT_EQ(Summarize(r, 2, 0).jobs, 1u);
}

TEST(SimulatorTest, GpuJobsGetTheirGpus) {
  auto config = Cluster({1, 4, 2});
  ASSERT_NE(config, nullptr);
  TraceJob a = Job(1, 0, 1, 100, 100);
  a.gpus = 2;
  TraceJob b = Job(2, 0, 1, 10, 10);
  b.gpus = 1;
  SimResult r = Replay(*config, {a, b});
  EXPECT_EQ(r.jobs[0].gpus, 2u);
  EXPECT_EQ(r.jobs[0].start, 0);
  EXPECT_EQ(r.jobs[1].start, 100);  // The node's two GPUs are taken until then
  EXPECT_EQ(r.jobs[1].gpus, 1u);
}

TEST(SimulatorTest, TwoRunsAreByteIdentical) {
  auto config = Cluster({16, 1, 0});
  ASSERT_NE(config, nullptr);
  std::vector<TraceJob> jobs = GenerateTrace({300, 16, 0.9, 7});
  std::string outputs[2];
  for (std::string& out : outputs) {
    SimResult r = Replay(*config, jobs);
    std::ostringstream text;
    WriteJobsCsv(text, r);
    WriteSummary(text, Summarize(r, 16, 0), /*timing=*/false);
    out = text.str();
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_NE(outputs[0].find("jobs 300\n"), std::string::npos) << outputs[0];
}

// The replay skips the backfill passes that could start no job, and plans
// only what starts: the same trace planned at every pass, as the controller
// would, gives the same bytes, under every backfill policy and estimate (user
// estimates time some jobs out, so the kill path is covered too).
TEST(SimulatorTest, SkippingPassesThatCannotStartAJobChangesNoStart) {
  auto config = Cluster({16, 2, 0});
  ASSERT_NE(config, nullptr);
  std::vector<TraceJob> jobs = GenerateTrace({400, 32, 0.95, 11});
  // Some jobs outlive their request, so that user estimates kill them.
  for (size_t i = 0; i < jobs.size(); i += 7) jobs[i].requested_s = jobs[i].runtime_s / 2 + 1;
  for (Policy policy : {Policy::kEasy, Policy::kConservative, Policy::kSlurm}) {
    for (Estimates estimates : {Estimates::kUser, Estimates::kExact, Estimates::kPredicted}) {
      std::string outputs[2];
      for (int full = 0; full < 2; ++full) {
        SimOptions options;
        options.policy = policy;
        options.estimates = estimates;
        options.plan_every_pass = full == 1;
        SimResult r = Simulator(*config, options).Run(jobs);
        std::ostringstream text;
        WriteJobsCsv(text, r);
        WriteSummary(text, Summarize(r, 32, 0), /*timing=*/false);
        outputs[full] = text.str();
      }
      SCOPED_TRACE(static_cast<int>(policy));
      SCOPED_TRACE(static_cast<int>(estimates));
      EXPECT_EQ(outputs[0], outputs[1]);
      EXPECT_NE(outputs[0].find("jobs 400\n"), std::string::npos) << outputs[0];
    }
  }
}

}  // namespace
}  // namespace rota::sim
