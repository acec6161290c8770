#include "sim/replay_plot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace rota::sim {
namespace {

JobOutcome Job(int64_t submit, int64_t start, int64_t end, uint32_t cpus, uint32_t gpus = 0) {
  JobOutcome o;
  o.submit = submit;
  o.start = start;
  o.end = end;
  o.cpus = cpus;
  o.gpus = gpus;
  return o;
}

// Two 2-CPU jobs on a 4-CPU cluster, the second waiting for the first:
// t=0 one runs and one waits; t=10 the second runs; t=20 both are done.
SimResult TwoInARow() {
  SimResult r;
  r.jobs = {Job(0, 0, 10, 2, 1), Job(0, 10, 20, 2)};
  return r;
}

TEST(SampleReplay, FollowsStartsAndEnds) {
  std::vector<PlotSample> s = SampleReplay(TwoInARow(), 4, 2, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].time_s, 0);
  EXPECT_EQ(s[0].waiting, 1u);
  EXPECT_DOUBLE_EQ(s[0].cpu_utilization, 0.5);
  EXPECT_DOUBLE_EQ(s[0].gpu_utilization, 0.5);
  EXPECT_EQ(s[1].time_s, 10);
  EXPECT_EQ(s[1].waiting, 0u);
  EXPECT_DOUBLE_EQ(s[1].cpu_utilization, 0.5);
  EXPECT_DOUBLE_EQ(s[1].gpu_utilization, 0.0);
  EXPECT_EQ(s[2].time_s, 20);
  EXPECT_DOUBLE_EQ(s[2].cpu_utilization, 0.0);
}

TEST(SampleReplay, NeverMoreSamplesThanSecondsAndSkipsRefused) {
  SimResult r = TwoInARow();
  JobOutcome refused = Job(5, -1, -1, 64);
  refused.refused = "Requested node configuration is not available";
  r.jobs.push_back(refused);
  JobOutcome stuck = Job(3, -1, -1, 8);  // Never started: waits to the end
  r.jobs.push_back(stuck);
  std::vector<PlotSample> s = SampleReplay(r, 4, 0, 1000);
  ASSERT_EQ(s.size(), 21u);  // Seconds 0..20
  EXPECT_EQ(s[2].waiting, 1u);
  EXPECT_EQ(s[3].waiting, 2u);
  EXPECT_EQ(s[20].waiting, 1u);
  EXPECT_DOUBLE_EQ(s[20].gpu_utilization, 0.0);  // No GPUs in the cluster
}

TEST(SampleReplay, EmptyReplayHasNoSamples) {
  EXPECT_TRUE(SampleReplay(SimResult{}, 4, 0, 10).empty());
}

TEST(WaitHistogram, CountsStartedJobsByWait) {
  SimResult r;
  r.jobs = {Job(0, 0, 5, 1), Job(0, 59, 60, 1), Job(0, 60, 70, 1), Job(0, 7200, 7300, 1),
            Job(0, -1, -1, 1)};
  std::vector<WaitBin> bins = WaitHistogram(r);
  ASSERT_GE(bins.size(), 4u);
  EXPECT_EQ(bins[0].label, "< 1 min");
  EXPECT_EQ(bins[0].jobs, 2u);
  EXPECT_EQ(bins[1].jobs, 1u);
  EXPECT_EQ(bins[2].jobs, 0u);
  EXPECT_EQ(bins[3].jobs, 1u);
  uint64_t total = 0;
  for (const WaitBin& b : bins) total += b.jobs;
  EXPECT_EQ(total, 4u);
}

TEST(WriteReplayPlot, IsOneSvgDocumentWithEscapedTitle) {
  std::ostringstream out;
  WriteReplayPlot(out, TwoInARow(), 4, 2, "KTH <easy> & co");
  const std::string svg = out.str();
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_THAT(svg, ::testing::EndsWith("</svg>\n"));
  EXPECT_THAT(svg, ::testing::HasSubstr("KTH &lt;easy&gt; &amp; co"));
  EXPECT_THAT(svg, ::testing::Not(::testing::HasSubstr("<easy>")));
  // Waiting jobs, CPU and GPU utilization: three lines.
  size_t lines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 3u);
  EXPECT_THAT(svg, ::testing::HasSubstr("Jobs waiting (max 1)"));
}

TEST(WriteReplayPlot, SameReplaySameBytes) {
  std::ostringstream a, b;
  WriteReplayPlot(a, TwoInARow(), 4, 2, "t");
  WriteReplayPlot(b, TwoInARow(), 4, 2, "t");
  EXPECT_EQ(a.str(), b.str());
}

}  // namespace
}  // namespace rota::sim
