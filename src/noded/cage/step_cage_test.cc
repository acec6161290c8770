// The plan of a step's cage: what cgroup.conf asks for of the step's share.
#include "noded/cage/step_cage.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

conf::CgroupConf Constrained() {
  conf::CgroupConf conf;
  conf.constrain_cores = true;
  conf.constrain_ram_space = true;
  conf.constrain_devices = true;
  return conf;
}

TEST(StepCageTest, NamesAsSlurmDoes) {
  EXPECT_EQ(StepCageName(0), "step_0");
  EXPECT_EQ(StepCageName(12), "step_12");
  EXPECT_EQ(TaskCageName(3), "task_3");
}

TEST(StepCageTest, TheStepsCpusAndMemoryUnderConstraints) {
  StepCageRequest request;
  request.step_cpus = {2, 3};
  request.step_mem_mb = 50;
  StepCageLimits limits = PlanStepCage(Constrained(), true, request);
  EXPECT_EQ(limits.cpu_ids, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(limits.memory_bytes, uint64_t{50} << 20);
  EXPECT_FALSE(limits.task_cages);
  EXPECT_FALSE(limits.task_cpusets);

  // A step without memory of its own keeps the job's limit.
  request.step_mem_mb = 0;
  EXPECT_FALSE(PlanStepCage(Constrained(), true, request).memory_bytes.has_value());
  // Nothing constrained, or nothing enforced: nothing at all.
  request.step_mem_mb = 50;
  request.tasks_bound_by_user = true;
  StepCageLimits free = PlanStepCage(conf::CgroupConf{}, true, request);
  EXPECT_TRUE(free.cpu_ids.empty());
  EXPECT_FALSE(free.memory_bytes.has_value());
  EXPECT_FALSE(free.task_cages);
  StepCageLimits unenforced = PlanStepCage(Constrained(), false, request);
  EXPECT_TRUE(unenforced.cpu_ids.empty());
  EXPECT_FALSE(unenforced.task_cages);
}

TEST(StepCageTest, MemoryFollowsAllowedRamSpaceAndItsMinimum) {
  conf::CgroupConf conf = Constrained();
  conf.allowed_ram_space_percent = 150;
  EXPECT_EQ(CageMemoryBytes(conf, 100), uint64_t{150} << 20);
  conf.allowed_ram_space_percent = 100;
  EXPECT_EQ(CageMemoryBytes(conf, 10), uint64_t{30} << 20);  // MinRAMSpace=30
}

TEST(StepCageTest, TaskCagesForUserBindingsAndGpus) {
  StepCageRequest request;
  request.step_cpus = {0, 1};
  request.tasks_bound_by_user = true;
  StepCageLimits limits = PlanStepCage(Constrained(), true, request);
  EXPECT_TRUE(limits.task_cages);
  EXPECT_TRUE(limits.task_cpusets);
  // map_cpu naming a job CPU beyond the step's: the step's cage takes it in.
  request.task_cpus = {{1}, {3}};
  limits = PlanStepCage(Constrained(), true, request);
  EXPECT_EQ(limits.cpu_ids, (std::vector<uint32_t>{0, 1, 3}));
  // Without ConstrainCores a binding stays sched_setaffinity's alone.
  conf::CgroupConf no_cores = Constrained();
  no_cores.constrain_cores = false;
  limits = PlanStepCage(no_cores, true, request);
  EXPECT_FALSE(limits.task_cpusets);
  EXPECT_FALSE(limits.task_cages);
  // GPUs per task: device cages, no cpusets.
  request.tasks_bound_by_user = false;
  request.tasks_confined_to_gpus = true;
  limits = PlanStepCage(Constrained(), true, request);
  EXPECT_TRUE(limits.task_cages);
  EXPECT_FALSE(limits.task_cpusets);
}

}  // namespace
}  // namespace rota::noded
