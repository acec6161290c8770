#include "noded/stepd/task_cpu_binding.h"

#include <gtest/gtest.h>

#include <map>

namespace rota::noded {
namespace {

using Cpus = std::vector<std::vector<uint32_t>>;

// A node of 2 sockets x 2 cores x 2 threads (CPUs 0-7); the step holds
// `step`, the job 0-7.
TaskCpuRequest Request(std::vector<uint32_t> step, uint32_t tasks, uint32_t per_task = 1) {
  TaskCpuRequest r;
  r.step_cpus = std::move(step);
  r.job_cpus = {0, 1, 2, 3, 4, 5, 6, 7};
  r.local_tasks = tasks;
  r.cpus_per_task = per_task;
  r.threads_per_core = 2;
  r.cores_per_socket = 2;
  return r;
}

Result<TaskCpuBinding> Bind(const std::string& spec, const TaskCpuRequest& request) {
  Result<CpuBindSpec> parsed = ParseCpuBindSpec(spec);
  if (!parsed.ok()) return parsed.status();
  return BindTaskCpus(*parsed, request);
}

TEST(TaskCpuBindingTest, ThreadsCoresAndSockets) {
  Result<TaskCpuBinding> b = Bind("threads", Request({0, 1, 2, 3}, 2, 2));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {2, 3}}));
  // Cores: tasks take whole cores, every thread (of the step) of each.
  b = Bind("cores", Request({0, 1, 2, 3}, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {2, 3}}));
  // Tasks go round the sockets (Slurm's default -m block:cyclic).
  b = Bind("cores", Request({0, 2, 4}, 3));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {4}, {2}}));
  b = Bind("sockets", Request({0, 1, 4, 5}, 2, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {4, 5}}));
  b = Bind("rank", Request({2, 3, 6}, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{2}, {3}}));
}

// -m's sockets level on a node of 2 sockets x 2 cores x 2 threads: the
// step holds every CPU; four tasks of two CPUs each bound to threads.
TEST(TaskCpuBindingTest, TheSocketsLevelDealsTheCpus) {
  TaskCpuRequest r = Request({0, 1, 2, 3, 4, 5, 6, 7}, 4, 2);
  r.sockets = model::TaskDistribution::kSocketCyclic;
  Result<TaskCpuBinding> b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {4, 5}, {2, 3}, {6, 7}}));
  r.sockets = model::TaskDistribution::kSocketBlock;
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  r.sockets = model::TaskDistribution::kSocketFcyclic;
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // Cyclic keeps a task on one socket while that socket has CPUs, then
  // goes on to the next: 3 CPUs each from 0-2 and 4-6.
  r = Request({0, 1, 2, 4, 5, 6}, 2, 3);
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1, 2}, {4, 5, 6}}));
  r = Request({0, 1, 4, 5, 6, 7}, 2, 3);  // Socket 0 has only 2: task 0 spills over
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1, 4}, {5, 6, 7}}));
}

// srun --hint, where --cpu-bind is not given and task/affinity binds.
TEST(TaskCpuBindingTest, HintsBindWithoutCpuBind) {
  TaskCpuRequest r = Request({0, 1, 2, 3, 4, 5, 6, 7}, 4);
  r.affinity_by_default = true;
  r.hint = "nomultithread";  // One thread of each core, round the sockets
  Result<TaskCpuBinding> b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->kind, CpuBindSpec::kThreads);
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {4}, {2}, {6}}));
  r.hint = "multithread";  // Every thread is a CPU of its own
  b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {4}, {1}, {5}}));
  r.hint = "compute_bound";
  b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->kind, CpuBindSpec::kCores);
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {4, 5}, {2, 3}, {6, 7}}));
  // --ntasks-per-core=1 keeps tasks on cores of their own as nomultithread does.
  r.hint = "";
  r.ntasks_per_core = 1;
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {4}, {2}, {6}}));
  r.ntasks_per_core = 0;
  // --cpu-bind wins; without task/affinity nothing binds.
  r.hint = "nomultithread";
  b = Bind("threads", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {4}, {1}, {5}}));
  r.affinity_by_default = false;
  b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->bound());
}

TEST(TaskCpuBindingTest, DefaultFollowsTheTaskPlugin) {
  TaskCpuRequest r = Request({0, 2}, 2);
  Result<TaskCpuBinding> b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->bound());
  EXPECT_EQ(b->task_cpus, Cpus({{}, {}}));
  r.affinity_by_default = true;
  b = Bind("", r);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->kind, CpuBindSpec::kCores);
  EXPECT_EQ(b->task_cpus, Cpus({{0}, {2}}));
  b = Bind("none", r);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->bound());
}

TEST(TaskCpuBindingTest, MapAndMaskStayInsideTheJob) {
  Result<TaskCpuBinding> b = Bind("map_cpu:5,3", Request({0}, 3));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->task_cpus, Cpus({{5}, {3}, {5}}));
  b = Bind("mask_cpu:0x3,0xc", Request({0}, 2));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_cpus, Cpus({{0, 1}, {2, 3}}));
  EXPECT_FALSE(Bind("map_cpu:9", Request({0}, 1)).ok());
  EXPECT_FALSE(Bind("mask_cpu:0x100", Request({0}, 1)).ok());
}

TEST(TaskCpuBindingTest, EnvironmentAndVerboseLine) {
  Result<TaskCpuBinding> b = Bind("verbose,cores", Request({0, 2}, 2));
  ASSERT_TRUE(b.ok());
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : CpuBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_CPU_BIND"], "verbose,mask_cpu:0x1,0x4");
  EXPECT_EQ(env["SLURM_CPU_BIND_TYPE"], "mask_cpu:");
  EXPECT_EQ(env["SLURM_CPU_BIND_LIST"], "0x1,0x4");
  EXPECT_EQ(env["SLURM_CPU_BIND_VERBOSE"], "verbose");
  EXPECT_EQ(DescribeTaskCpus(*b, "n1", 3, 1, 4242, {}),
            "cpu-bind=MASK - n1, task  3  1 [4242]: mask 0x4 set");

  b = Bind("map_cpu:1,0", Request({0, 1}, 2));
  ASSERT_TRUE(b.ok());
  env.clear();
  for (const auto& [k, v] : CpuBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_CPU_BIND"], "quiet,map_cpu:1,0");
  EXPECT_EQ(env["SLURM_CPU_BIND_TYPE"], "map_cpu:");

  b = Bind("none", Request({0, 1}, 1));
  ASSERT_TRUE(b.ok());
  env.clear();
  for (const auto& [k, v] : CpuBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_CPU_BIND"], "quiet,none");
  EXPECT_EQ(env["SLURM_CPU_BIND_TYPE"], "none");
  EXPECT_EQ(env["SLURM_CPU_BIND_LIST"], "");
  EXPECT_EQ(DescribeTaskCpus(*b, "n1", 0, 0, 7, {0, 1}),
            "cpu-bind=NONE - n1, task  0  0 [7]: mask 0x3 set");
}

}  // namespace
}  // namespace rota::noded
