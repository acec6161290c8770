#include "cli/step/srun_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rota::cli {
namespace {

SrunOptions Options() {
  SrunOptions o;
  o.job_id = 12;
  o.num_tasks = 4;
  o.command = {"/usr/bin/hostname", "-s"};
  return o;
}

bool Has(const wire::LaunchTasksRequest& launch, const std::string& variable) {
  return std::find(launch.environment().begin(), launch.environment().end(), variable) !=
         launch.environment().end();
}

TEST(SrunPlanTest, TheStepIsNamedAfterItsCommandUnlessNamedAndAShellOverlaps) {
  SrunOptions o = Options();
  wire::CreateStepRequest step = StepRequestFor(o);
  EXPECT_EQ(step.job_id(), 12u);
  EXPECT_EQ(step.num_tasks(), 4u);
  EXPECT_EQ(step.name(), "hostname");
  ASSERT_EQ(step.argv_size(), 2);
  EXPECT_EQ(step.argv(1), "-s");
  EXPECT_FALSE(step.overlap());

  o.job_name = "probe";
  o.pty = true;
  step = StepRequestFor(o);
  EXPECT_EQ(step.name(), "probe");
  EXPECT_TRUE(step.overlap());  // Steps started from the shell must not wait for it
}

TEST(SrunPlanTest, TheLaunchCarriesTheEnvironmentWithTheAllocationsVariablesOverIt) {
  conf::ClusterConfig config;
  std::string warning;
  wire::LaunchTasksRequest launch =
      LaunchRequestFor(Options(), config, 12, 3, {"HOME=/root", "SLURM_JOB_ID=1"},
                       {{"SLURM_JOB_ID", "12"}, {"SLURM_STEP_ID", "3"}}, &warning);
  EXPECT_EQ(launch.job_id(), 12u);
  EXPECT_EQ(launch.step_id(), 3u);
  EXPECT_TRUE(Has(launch, "HOME=/root"));
  EXPECT_TRUE(Has(launch, "SLURM_JOB_ID=12"));
  EXPECT_FALSE(Has(launch, "SLURM_JOB_ID=1"));
  EXPECT_TRUE(Has(launch, "SLURM_STEP_ID=3"));
  EXPECT_FALSE(launch.has_pmi());
  EXPECT_EQ(warning, "");
}

TEST(SrunPlanTest, MpiDefaultGivesItsPmiUnlessTheCommandLineSaysNone) {
  conf::ClusterConfig config;
  config.settings.mpi_default = "pmi2";
  std::string warning;
  wire::LaunchTasksRequest launch = LaunchRequestFor(Options(), config, 12, 0, {}, {}, &warning);
  EXPECT_EQ(launch.pmi().type(), "pmi2");
  EXPECT_TRUE(Has(launch, "SLURM_MPI_TYPE=pmi2"));

  SrunOptions none = Options();
  none.mpi = "none";
  launch = LaunchRequestFor(none, config, 12, 0, {}, {}, &warning);
  EXPECT_FALSE(launch.has_pmi());

  config.settings.mpi_default = "pmix_v4";
  launch = LaunchRequestFor(Options(), config, 12, 0, {}, {}, &warning);
  EXPECT_EQ(launch.pmi().type(), "pmix");
  EXPECT_TRUE(Has(launch, "SLURM_MPI_TYPE=pmix"));
  EXPECT_EQ(warning, "");

  config.settings.mpi_default = "cray_shasta";
  launch = LaunchRequestFor(Options(), config, 12, 0, {}, {}, &warning);
  EXPECT_FALSE(launch.has_pmi());
  EXPECT_NE(warning.find("MpiDefault=cray_shasta is not supported"), std::string::npos) << warning;
}

TEST(SrunPlanTest, StdinGoesToTheNodeHoldingItsTask) {
  wire::JobStepRecord step;
  for (const char* n : {"n1", "n2"}) step.add_nodes(n);
  step.add_tasks_per_node(2);
  step.add_tasks_per_node(3);
  StepIoOption input{StepIoOption::kStream, "", 0};
  EXPECT_EQ(StdinNode(input, step), "n1");
  input.task = 2;
  EXPECT_EQ(StdinNode(input, step), "n2");
  input.task = 5;
  EXPECT_EQ(StdinNode(input, step), "");  // No such task
  // Dealt cyclically (0 2 on n1, 1 3 4 on n2): task 1 is on n2, 2 on n1.
  for (uint32_t id : {0, 2, 1, 3, 4}) step.add_task_ids(id);
  input.task = 1;
  EXPECT_EQ(StdinNode(input, step), "n2");
  input.task = 2;
  EXPECT_EQ(StdinNode(input, step), "n1");
}

TEST(SrunPlanTest, AFileForEveryTaskIsTheNodesToWriteAndASharedOneIsSruns) {
  StepIoOption per_task{StepIoOption::kFile, "out-%t.txt", 0};
  EXPECT_EQ(WireMode(per_task, false).kind(), wire::TaskIoMode::FILE);
  StepIoOption shared{StepIoOption::kFile, "out-%j.txt", 0};
  EXPECT_NE(WireMode(shared, false).kind(), wire::TaskIoMode::FILE);  // Streamed to srun
  EXPECT_EQ(WireMode(shared, true).kind(), wire::TaskIoMode::FILE);   // Input is read by each
}

}  // namespace
}  // namespace rota::cli
