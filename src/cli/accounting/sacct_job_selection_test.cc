#include "cli/accounting/sacct_job_selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rota::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

wire::AccountingJob Job(uint32_t id, uint32_t array_id = 0, uint32_t task = 0) {
  wire::AccountingJob j;
  j.set_job_id(id);
  j.set_array_job_id(array_id);
  j.set_array_task_id(task);
  return j;
}

// What rotadbd answers for ids 28 and 30: job 28, and the three tasks of
// array 30 (the first keeps the array's id).
std::vector<wire::AccountingJob> Answer() {
  return {Job(28), Job(30, 30, 0), Job(31, 30, 1), Job(32, 30, 2)};
}

std::vector<uint32_t> Ids(const std::vector<wire::AccountingJob>& jobs) {
  std::vector<uint32_t> ids;
  for (const auto& j : jobs) ids.push_back(j.job_id());
  return ids;
}

TEST(SacctJobSelectionTest, AnArrayIdNamesEveryTaskAndATaskIdOne) {
  SacctJobSelection whole;
  ASSERT_TRUE(whole.Add("30").ok());
  EXPECT_THAT(whole.QueryIds(), ElementsAre(30u));
  std::vector<wire::AccountingJob> jobs = Answer();
  std::map<uint32_t, std::vector<std::string>> steps;
  whole.Apply(jobs, steps);
  EXPECT_THAT(Ids(jobs), ElementsAre(30u, 31u, 32u));
  EXPECT_THAT(steps, IsEmpty());

  SacctJobSelection task;
  ASSERT_TRUE(task.Add("30_2,28").ok());
  EXPECT_THAT(task.QueryIds(), ElementsAre(28u, 30u));
  jobs = Answer();
  task.Apply(jobs, steps);
  EXPECT_THAT(Ids(jobs), ElementsAre(28u, 32u));
}

TEST(SacctJobSelectionTest, StepsAloneOrWithTheWholeJob) {
  SacctJobSelection selection;
  ASSERT_TRUE(selection.Add("30_1.batch,28.0").ok());
  ASSERT_TRUE(selection.Add("28").ok());  // A second -j adds to the first.
  std::vector<wire::AccountingJob> jobs = Answer();
  std::map<uint32_t, std::vector<std::string>> steps;
  selection.Apply(jobs, steps);
  EXPECT_THAT(Ids(jobs), ElementsAre(28u, 31u));
  EXPECT_EQ(steps.count(28), 0u) << "named whole too";
  EXPECT_THAT(steps[31], ElementsAre("batch"));
}

TEST(SacctJobSelectionTest, BadPiecesAreNamed) {
  for (const char* bad : {"x", "0", "30_", "30_x", "_2", "28.", "4294967296"}) {
    SacctJobSelection selection;
    Status s = selection.Add(std::string("28,") + bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.message(), std::string("Bad job/step specified: ") + bad);
  }
  SacctJobSelection zero_task;
  EXPECT_TRUE(zero_task.Add("30_0").ok());
}

}  // namespace
}  // namespace rota::cli
