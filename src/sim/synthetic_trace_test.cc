#include "sim/synthetic_trace.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/swf_reader.h"

namespace rota::sim {
namespace {

TEST(SyntheticTraceTest, SameSeedSameTraceAndTheLoadAsked) {
  SyntheticOptions options{2000, 64, 0.8, 3};
  std::vector<TraceJob> a = GenerateTrace(options);
  std::vector<TraceJob> b = GenerateTrace(options);
  ASSERT_EQ(a.size(), 2000u);
  double work = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].submit_s, b[i].submit_s);
    EXPECT_EQ(a[i].runtime_s, b[i].runtime_s);
    EXPECT_GE(a[i].runtime_s, 1);
    EXPECT_GE(a[i].requested_s, a[i].runtime_s);
    EXPECT_GE(a[i].processors, 1u);
    EXPECT_LE(a[i].processors, 32u);
    if (i > 0) {
      EXPECT_GE(a[i].submit_s, a[i - 1].submit_s);
    }
    work += static_cast<double>(a[i].runtime_s) * a[i].processors;
  }
  double offered = work / (64.0 * static_cast<double>(a.back().submit_s));
  EXPECT_NEAR(offered, 0.8, 0.1);
  EXPECT_NE(GenerateTrace({10, 64, 0.8, 4})[0].runtime_s, a[0].runtime_s);
}

TEST(SyntheticTraceTest, WrittenSwfReadsBack) {
  SyntheticOptions options{50, 16, 0.5, 1};
  std::vector<TraceJob> jobs = GenerateTrace(options);
  std::ostringstream out;
  WriteSwf(out, jobs, options);
  Trace t = ParseSwf(out.str());
  EXPECT_EQ(t.machine_processors, 16u);
  ASSERT_EQ(t.jobs.size(), jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(t.jobs[i].submit_s, jobs[i].submit_s);
    EXPECT_EQ(t.jobs[i].processors, jobs[i].processors);
    EXPECT_EQ(t.jobs[i].requested_s, jobs[i].requested_s);
    EXPECT_EQ(t.jobs[i].user, jobs[i].user);
  }
}

}  // namespace
}  // namespace rota::sim
