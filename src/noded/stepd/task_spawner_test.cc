// Starting a step's tasks on one node from its plan: the environment every
// task shares and each its own, the GPU numbers the runtimes see, where the
// output goes, and a real task started under a cage that enforces nothing.
#include "noded/stepd/task_spawner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "noded/cage/unenforced_cage.h"
#include "noded/gpu/gpu_allocator.h"
#include "testing/config_files.h"

namespace rota::noded {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

// Task 4 and 5 of a 6-task step of job 7 on n1..n3, two per node; this is n2.
StepPlan TwoTasksOnTheSecondNode() {
  StepPlan plan;
  plan.job.set_job_id(7);
  plan.job.mutable_spec()->set_uid(geteuid());
  plan.job.mutable_spec()->set_gid(getegid());
  plan.job.mutable_spec()->set_user("someone");
  plan.job.mutable_spec()->set_name("train");
  for (const char* n : {"n1", "n2", "n3"}) {
    plan.job.add_nodes(n);
    plan.step.add_nodes(n);
    plan.step.add_tasks_per_node(2);
  }
  plan.step.set_job_id(7);
  plan.step.set_step_id(3);
  plan.step.set_num_tasks(6);
  plan.node_index = 1;
  plan.local_tasks = 2;
  plan.task_ids = {2, 3};
  plan.cpus_per_task = 2;
  plan.cpu_binding.task_cpus = {{}, {}};
  plan.gpu_binding.task_gpus = {{}, {}};
  return plan;
}

wire::LaunchTasksRequest RequestFor(const StepPlan& plan) {
  wire::LaunchTasksRequest request;
  request.set_job_id(plan.job.job_id());
  request.set_step_id(plan.step.step_id());
  request.set_node_index(1);
  request.add_environment("PATH=/usr/bin:/bin");
  request.add_environment("SLURM_NTASKS=99");  // srun's own, from its allocation
  request.add_environment("HOME=/home/someone");
  return request;
}

TEST(StepTaskEnvironmentTest, TheStepsVariablesOverSruns) {
  StepPlan plan = TwoTasksOnTheSecondNode();
  std::vector<std::string> env = StepTaskEnvironment(plan, RequestFor(plan), "n2");
  for (const char* entry :
       {"PATH=/usr/bin:/bin", "HOME=/home/someone", "SLURM_JOB_ID=7", "SLURM_STEP_ID=3",
        "SLURM_NODEID=1", "SLURMD_NODENAME=n2", "SLURM_STEP_NODELIST=n[1-3]",
        "SLURM_STEP_NUM_NODES=3", "SLURM_NTASKS=6", "SLURM_STEP_TASKS_PER_NODE=2(x3)",
        "SLURM_CPUS_PER_TASK=2"}) {
    EXPECT_TRUE(Has(env, entry)) << entry;
  }
  EXPECT_FALSE(Has(env, "SLURM_NTASKS=99"));
  EXPECT_EQ(std::count_if(env.begin(), env.end(),
                          [](const std::string& e) { return e.rfind("SLURM_NTASKS=", 0) == 0; }),
            1);
}

TEST(VisibleGpuNumbersTest, AsTheTaskCanSeeThem) {
  StepPlan plan;
  plan.job_gpus = {1, 3, 5};
  // Without a cage every GPU is visible, by node index.
  EXPECT_EQ(VisibleGpuNumbers(plan, {3, 5}), (std::vector<uint32_t>{3, 5}));
  // In the job's cage: the job's GPUs, numbered in order.
  plan.devices_constrained = true;
  EXPECT_EQ(VisibleGpuNumbers(plan, {3, 5}), (std::vector<uint32_t>{1, 2}));
  // Confined to its own: they are all it sees.
  plan.confine_gpus = true;
  EXPECT_EQ(VisibleGpuNumbers(plan, {3, 5}), (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(VisibleGpuNumbers(plan, {}).empty());
}

TEST(TaskOutputPathTest, PipeFileOrNothing) {
  StepIoFields fields;
  fields.job_id = 7;
  fields.task_id = 4;
  wire::TaskIoMode mode;
  EXPECT_EQ(TaskOutputPath(mode, 4, fields), "");  // To srun
  mode.set_kind(wire::TaskIoMode::NONE);
  EXPECT_EQ(TaskOutputPath(mode, 4, fields), "/dev/null");
  mode.set_kind(wire::TaskIoMode::FILE);
  mode.set_pattern("out-%j-%t");
  EXPECT_EQ(TaskOutputPath(mode, 4, fields), "out-7-4");
  mode.set_kind(wire::TaskIoMode::ONE_TASK);
  mode.set_task(4);
  EXPECT_EQ(TaskOutputPath(mode, 4, fields), "");
  EXPECT_EQ(TaskOutputPath(mode, 5, fields), "/dev/null");
}

class TaskSpawnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded =
        rota::testing::LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\n"
                                              "NodeName=n[1-3] CPUs=8 RealMemory=16000\n"
                                              "PartitionName=batch Nodes=n[1-3] Default=YES\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
    node_.config = config_;
    node_.settings.node_name = "n2";
    node_.gpus = &gpus_;
    node_.cgroups = &cage_;
  }

  rota::testing::TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  GpuAllocator gpus_{std::vector<GpuDevice>{}};
  UnenforcedCage cage_;
  NodeContext node_;
};

TEST_F(TaskSpawnerTest, StartsATaskWithItsOwnIdsAndItsOutputOnAPipe) {
  StepPlan plan = TwoTasksOnTheSecondNode();
  wire::LaunchTasksRequest request = RequestFor(plan);
  request.set_work_dir(dir_.path().string());
  for (const char* arg : {"/bin/sh", "-c", "echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NTASKS"}) {
    request.add_argv(arg);
  }
  TaskSpawner spawner(node_, plan, request);
  ASSERT_TRUE(spawner.MakeStepCage().ok());
  LocalTask task;
  Status started = spawner.Start(1, nullptr, task);
  ASSERT_TRUE(started.ok()) << started.message();
  EXPECT_EQ(task.local_id, 1u);
  EXPECT_EQ(task.global_id, 3u);
  ASSERT_GT(task.pid, 0);
  ASSERT_GE(task.fds[0], 0);
  ASSERT_GE(task.fds[1], 0);
  EXPECT_EQ(task.stdin_fd, -1);  // No -i for it
  std::string out;
  char buf[256];
  for (ssize_t n; (n = read(task.fds[0], buf, sizeof buf)) > 0;) out.append(buf, n);
  int status = 0;
  ASSERT_EQ(waitpid(task.pid, &status, 0), task.pid);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(out, "3 1 6\n");
  EXPECT_TRUE(spawner.BindingReports(task).empty());  // Neither verbose
  for (int fd : {task.fds[0], task.fds[1], task.pidfd}) {
    if (fd >= 0) close(fd);
  }
}

TEST_F(TaskSpawnerTest, AProgramThatCannotRunIsTheTasksError) {
  StepPlan plan = TwoTasksOnTheSecondNode();
  wire::LaunchTasksRequest request = RequestFor(plan);
  request.set_work_dir(dir_.path().string());
  request.add_argv("/nonexistent/program");
  TaskSpawner spawner(node_, plan, request);
  LocalTask task;
  Status started = spawner.Start(0, nullptr, task);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.message().rfind("task 2: ", 0), 0u) << started.message();
  EXPECT_EQ(task.pid, -1);
}

}  // namespace
}  // namespace rota::noded
