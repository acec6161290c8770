#include "sim/runtime_predictions.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/trace_submission.h"

namespace rota::sim {
namespace {

TEST(RuntimePredictionsTest, PairsCommentsAndBlankLines) {
  Result<RuntimePredictions> p =
      ParseRuntimePredictions("# job seconds\n10 3600\n\n  11\t60  # a comment\r\n12 1", "p.txt");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->size(), 3u);
  EXPECT_EQ(p->at(10), 3600);
  EXPECT_EQ(p->at(11), 60);
  EXPECT_EQ(p->at(12), 1);
}

TEST(RuntimePredictionsTest, BadLinesAreNamedByTheirNumber) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"10 60\n11\n", "p.txt:2: expected \"JOBID SECONDS\", got \"11\""},
      {"10 sixty\n", "p.txt:1: expected \"JOBID SECONDS\", got \"10 sixty\""},
      {"10 60 7\n", "p.txt:1: expected"},
      {"-3 60\n", "p.txt:1: expected"},
      {"# x\n10 0\n", "p.txt:2: the prediction for job 10 is not positive"},
      {"10 60\n\n10 70\n", "p.txt:3: job 10 is listed twice"},
  };
  for (const Case& c : cases) {
    Result<RuntimePredictions> p = ParseRuntimePredictions(c.text, "p.txt");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().message().rfind(c.message, 0), 0u) << p.status().message();
  }
}

TEST(RuntimePredictionsTest, ReadsAFileAndNamesAMissingOne) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("rota-predictions-" + std::to_string(getpid()));
  std::ofstream(path) << "7 90\n";
  Result<RuntimePredictions> p = ReadRuntimePredictions(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->at(7), 90);
  EXPECT_FALSE(ReadRuntimePredictions(path.string()).ok());
}

// A listed job carries its prediction, capped at its limit; one not listed
// carries its limit (planned as without a prediction); without the list, or
// without predicted estimates, nothing is set and the controller decides.
TEST(RuntimePredictionsTest, SubmissionsCarryTheListedPrediction) {
  TraceJob job;
  job.id = 5;
  job.processors = 1;
  job.runtime_s = 100;
  job.requested_s = 600;
  const RuntimePredictions listed = {{5, 120}};
  const RuntimePredictions too_long = {{5, 9000}};
  const RuntimePredictions other = {{6, 120}};
  EXPECT_EQ(SubmissionFor(job, Estimates::kPredicted, &listed).spec().expected_run_s(), 120);
  EXPECT_EQ(SubmissionFor(job, Estimates::kPredicted, &too_long).spec().expected_run_s(), 600);
  EXPECT_EQ(SubmissionFor(job, Estimates::kPredicted, &other).spec().expected_run_s(), 600);
  EXPECT_EQ(SubmissionFor(job, Estimates::kPredicted).spec().expected_run_s(), 0);
  EXPECT_EQ(SubmissionFor(job, Estimates::kUser, &listed).spec().expected_run_s(), 0);
}

}  // namespace
}  // namespace rota::sim
