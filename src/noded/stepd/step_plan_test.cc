// The plan of a step's tasks on one node, from the controller's records:
// who may start them, which node's share they are, and their bindings.
#include "noded/stepd/step_plan.h"

#include <gtest/gtest.h>

#include "noded/cage/unenforced_cage.h"
#include "noded/gpu/gpu_allocator.h"
#include "testing/config_files.h"

namespace rota::noded {
namespace {

class StepPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded =
        rota::testing::LoadConfigFiles(dir_, {"ClusterName=c\nSlurmctldHost=h\nGresTypes=gpu\n"
                                              "NodeName=n[1-2] CPUs=8 RealMemory=16000 Gres=gpu:4\n"
                                              "PartitionName=batch Nodes=n[1-2] Default=YES\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
    node_.config = config_;
    node_.settings.node_name = "n2";
    node_.gpus = &gpus_;
    node_.cgroups = &cage_;
    // A job of uid 1000 on n1 and n2 (CPUs 0-3 and GPUs 0-1 on n2), and its
    // step of 3 tasks: 1 on n1, 2 on n2, one GPU each.
    wire::JobLaunch& job = *known_.add_jobs();
    job.set_job_id(7);
    job.mutable_spec()->set_uid(1000);
    for (const char* n : {"n1", "n2"}) {
      job.add_nodes(n);
      wire::NodeAlloc& a = *job.add_allocs();
      a.set_cpu_ids("0-3");
      a.set_gpu_ids("0-1");
    }
    wire::JobStepRecord& step = *known_.add_steps();
    step.set_job_id(7);
    step.set_step_id(2);
    step.set_num_tasks(3);
    step.add_nodes("n1");
    step.add_nodes("n2");
    step.add_tasks_per_node(1);
    step.add_tasks_per_node(2);
    step.set_cpus_per_task(2);
    step.set_gpus_per_task(1);
  }

  rota::testing::TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  GpuAllocator gpus_{
      {GpuDevice(0, "", ""), GpuDevice(1, "", ""), GpuDevice(2, "", ""), GpuDevice(3, "", "")}};
  UnenforcedCage cage_;
  NodeContext node_;
  wire::ListStepsResponse known_;
};

TEST_F(StepPlanTest, ThisNodesShareWithItsBindings) {
  Result<StepPlan> plan = PlanStep(node_, known_, 1, 1000, false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->node_index, 1);
  EXPECT_EQ(plan->local_tasks, 2u);
  EXPECT_EQ(plan->task_ids, (std::vector<uint32_t>{1, 2}));  // Task 0 is n1's
  EXPECT_EQ(plan->cpus_per_task, 2u);
  EXPECT_EQ(plan->job_gpus, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(plan->step_cpus,
            (std::vector<uint32_t>{0, 1, 2, 3}));  // The step holds none of its own
  ASSERT_EQ(plan->gpu_binding.task_gpus.size(), 2u);
  EXPECT_EQ(plan->gpu_binding.task_gpus[0], std::vector<uint32_t>{0});
  EXPECT_EQ(plan->gpu_binding.task_gpus[1], std::vector<uint32_t>{1});
  EXPECT_FALSE(plan->confine_gpus);  // Nothing enforces here
}

TEST_F(StepPlanTest, OnlyTheOwnerOrAPrivilegedCallerAndOnlyOnItsNodes) {
  Result<StepPlan> other = PlanStep(node_, known_, 1, 1001, false);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(PlanStep(node_, known_, 1, 0, true).ok());
  // Index 0 names n1, not this node; an index past the step's nodes neither.
  for (uint32_t index : {0u, 2u}) {
    Result<StepPlan> elsewhere = PlanStep(node_, known_, index, 1000, false);
    ASSERT_FALSE(elsewhere.ok()) << index;
    EXPECT_NE(elsewhere.status().message().find("has no tasks on n2"), std::string::npos);
  }
  // A step whose job holds nothing here.
  known_.mutable_jobs(0)->mutable_nodes(1)->assign("n3");
  Result<StepPlan> nothing = PlanStep(node_, known_, 1, 1000, false);
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.status().message().find("the job holds nothing on n2"), std::string::npos);
}

TEST_F(StepPlanTest, ABindingThatCannotBeMetIsRefused) {
  known_.mutable_steps(0)->set_gpu_bind("map_gpu:bogus");
  EXPECT_FALSE(PlanStep(node_, known_, 1, 1000, false).ok());
}

// The step's -m and --hint reach its tasks' CPU binding, on a node of 2
// sockets x 2 cores x 2 threads where task/affinity binds by default.
TEST_F(StepPlanTest, TheStepsDistributionAndHintReachItsCpuBinding) {
  auto loaded = rota::testing::LoadConfigFiles(
      dir_, {"ClusterName=c\nSlurmctldHost=h\nGresTypes=gpu\nTaskPlugin=task/affinity\n"
             "NodeName=n[1-2] Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=16000 "
             "Gres=gpu:4\n"
             "PartitionName=batch Nodes=n[1-2] Default=YES\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  node_.config = *loaded.config;
  for (wire::NodeAlloc& a : *known_.mutable_jobs(0)->mutable_allocs()) a.set_cpu_ids("0-7");
  wire::JobStepRecord& step = *known_.mutable_steps(0);
  step.set_cpus_per_task(1);
  step.set_gpus_per_task(0);
  auto bound = [&]() {
    Result<StepPlan> plan = PlanStep(node_, known_, 1, 1000, false);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? plan->cpu_binding.task_cpus : std::vector<std::vector<uint32_t>>{};
  };
  using Cpus = std::vector<std::vector<uint32_t>>;
  EXPECT_EQ(bound(), Cpus({{0, 1}, {4, 5}}));  // Cores, round the sockets
  step.set_distribution("block:block");
  EXPECT_EQ(bound(), Cpus({{0, 1}, {2, 3}}));
  step.set_hint("multithread");
  EXPECT_EQ(bound(), Cpus({{0}, {1}}));
  step.set_distribution("");
  step.set_hint("nomultithread");
  EXPECT_EQ(bound(), Cpus({{0}, {4}}));
}

// The step's --mem-bind gives each task its NUMA nodes (this host's layout,
// read from sysfs; node 0 everywhere).
TEST_F(StepPlanTest, TheStepsMemBindGivesEachTaskItsNodes) {
  Result<StepPlan> plan = PlanStep(node_, known_, 1, 1000, false);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->mem_binding.bound());
  known_.mutable_steps(0)->set_mem_bind("verbose,map_mem:0");
  plan = PlanStep(node_, known_, 1, 1000, false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->mem_binding.verbose);
  EXPECT_EQ(plan->mem_binding.task_nodes, (std::vector<std::vector<uint32_t>>{{0}, {0}}));
  known_.mutable_steps(0)->set_mem_bind("map_mem:4095");  // No host has it
  EXPECT_FALSE(PlanStep(node_, known_, 1, 1000, false).ok());
}

}  // namespace
}  // namespace rota::noded
