#include "cli/scancel_filters.h"

#include <gtest/gtest.h>

#include <sstream>

namespace rota::cli {
namespace {

wire::JobRecord Job(uint32_t id, const char* account, const char* node,
                    wire::JobState state = wire::JOB_STATE_RUNNING) {
  wire::JobRecord job;
  job.set_job_id(id);
  job.set_state(state);
  job.mutable_spec()->set_account(account);
  job.mutable_spec()->set_qos("normal");
  if (*node != '\0') job.add_nodes(node);
  return job;
}

std::vector<std::string> Ids(const std::vector<const wire::JobRecord*>& jobs) {
  std::vector<std::string> ids;
  for (const wire::JobRecord* j : jobs) ids.push_back(ScancelJobId(*j));
  return ids;
}

TEST(ScancelFiltersTest, EveryFilterMustPassAndEndedJobsAreLeftOut) {
  std::vector<wire::JobRecord> jobs = {Job(1, "physics", "n1"), Job(2, "chem", "n2"),
                                       Job(3, "physics", "", wire::JOB_STATE_PENDING),
                                       Job(4, "physics", "n1", wire::JOB_STATE_COMPLETED)};
  jobs[2].mutable_spec()->set_reservation("maint");
  jobs[1].mutable_spec()->set_wckey("sim");
  ScancelListFilters f;
  f.accounts = {"physics"};
  EXPECT_EQ(Ids(JobsPassingFilters(jobs, f)), (std::vector<std::string>{"1", "3"}));
  f.nodes = {"n1", "n9"};
  EXPECT_EQ(Ids(JobsPassingFilters(jobs, f)), (std::vector<std::string>{"1"}));
  f = {};
  f.reservations = {"maint"};
  EXPECT_EQ(Ids(JobsPassingFilters(jobs, f)), (std::vector<std::string>{"3"}));
  f = {};
  f.wckeys = {"sim"};
  f.qos = {"normal"};
  EXPECT_EQ(Ids(JobsPassingFilters(jobs, f)), (std::vector<std::string>{"2"}));
  f.qos = {"high"};
  EXPECT_TRUE(JobsPassingFilters(jobs, f).empty());
}

TEST(ScancelFiltersTest, ArrayTasksAreNamedByTheirTaskIds) {
  wire::JobRecord task = Job(12, "physics", "n1");
  task.set_array_job_id(10);
  task.set_array_task_id(2);
  const std::vector<wire::JobRecord> one = {task};
  ScancelListFilters f;
  f.accounts = {"physics"};
  EXPECT_EQ(Ids(JobsPassingFilters(one, f)), (std::vector<std::string>{"10_2"}));
}

TEST(ScancelFiltersTest, InteractiveAsksForEachJobUntilYesOrNo) {
  std::vector<wire::JobRecord> jobs = {Job(1, "physics", "n1"), Job(2, "physics", "n2"),
                                       Job(3, "physics", "n3")};
  for (wire::JobRecord& j : jobs) {
    j.mutable_spec()->set_name("train");
    j.mutable_spec()->set_partition("gpu");
  }
  const std::vector<const wire::JobRecord*> all = {&jobs[0], &jobs[1], &jobs[2]};
  std::istringstream answers("yes\nmaybe\nN\nY\n");
  std::ostringstream asked;
  EXPECT_EQ(ConfirmedJobs(all, answers, asked), (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(asked.str(),
            "Cancel job_id=1 name=train partition=gpu [y/n]? "
            "Cancel job_id=2 name=train partition=gpu [y/n]? "
            "Cancel job_id=2 name=train partition=gpu [y/n]? "
            "Cancel job_id=3 name=train partition=gpu [y/n]? ");
  // The end of the answers is a no; a step is named with its id.
  std::istringstream none("");
  std::ostringstream asked_step;
  EXPECT_TRUE(ConfirmedJobs({&jobs[0]}, none, asked_step, "0").empty());
  EXPECT_EQ(asked_step.str(), "Cancel step_id=1.0 name=train partition=gpu [y/n]? ");
}

}  // namespace
}  // namespace rota::cli
