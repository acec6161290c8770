#include "cli/scancel_filters.h"

#include <gtest/gtest.h>

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

TEST(ScancelFiltersTest, EveryFilterMustPassAndEndedJobsAreLeftOut) {
  std::vector<wire::JobRecord> jobs = {Job(1, "physics", "n1"), Job(2, "chem", "n2"),
                                       Job(3, "physics", "", wire::JOB_STATE_PENDING),
                                       Job(4, "physics", "n1", wire::JOB_STATE_COMPLETED)};
  jobs[2].mutable_spec()->set_reservation("maint");
  jobs[1].mutable_spec()->set_wckey("sim");
  ScancelListFilters f;
  f.accounts = {"physics"};
  EXPECT_EQ(JobsPassingFilters(jobs, f), (std::vector<std::string>{"1", "3"}));
  f.nodes = {"n1", "n9"};
  EXPECT_EQ(JobsPassingFilters(jobs, f), (std::vector<std::string>{"1"}));
  f = {};
  f.reservations = {"maint"};
  EXPECT_EQ(JobsPassingFilters(jobs, f), (std::vector<std::string>{"3"}));
  f = {};
  f.wckeys = {"sim"};
  f.qos = {"normal"};
  EXPECT_EQ(JobsPassingFilters(jobs, f), (std::vector<std::string>{"2"}));
  f.qos = {"high"};
  EXPECT_TRUE(JobsPassingFilters(jobs, f).empty());
}

TEST(ScancelFiltersTest, ArrayTasksAreNamedByTheirTaskIds) {
  wire::JobRecord task = Job(12, "physics", "n1");
  task.set_array_job_id(10);
  task.set_array_task_id(2);
  ScancelListFilters f;
  f.accounts = {"physics"};
  EXPECT_EQ(JobsPassingFilters({task}, f), (std::vector<std::string>{"10_2"}));
}

}  // namespace
}  // namespace rota::cli
