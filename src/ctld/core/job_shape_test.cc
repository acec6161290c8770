#include "ctld/core/job_shape.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

class JobShapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = LoadConfigFiles(
        dir_,
        {"ClusterName=c\nSlurmctldHost=h\nGresTypes=gpu\nSelectTypeParameters=CR_Core_Memory\n"
         "DefMemPerCPU=1000\n"
         "NodeName=g[1-4] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=256000 "
         "Gres=gpu:a100:8 Feature=a100,ib\n"
         "PartitionName=gpu Nodes=g[1-4] Default=YES MaxTime=1-00:00:00 DefaultTime=1:00:00\n"
         "PartitionName=small Nodes=g1 MaxNodes=1\n"});
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    config_ = *loaded.config;
    model_ = sched::BuildClusterModel(*config_);
  }

  // Shaped and checked, as a submission is.
  Result<JobShape> Shape(const wire::JobSpec& spec, const char* partition = "gpu") {
    const conf::PartitionConfig& p = *config_->FindPartition(partition);
    Result<JobShape> shape = ShapeJob(spec, p, *config_, model_);
    if (!shape.ok()) return shape;
    ROTA_RETURN_IF_ERROR(CheckCanEverRun(*shape, p, model_));
    return shape;
  }

  TempDir dir_;
  std::shared_ptr<const conf::ClusterConfig> config_;
  sched::ClusterModel model_;
};

TEST_F(JobShapeTest, DefaultsOneTaskOneCpuDefaultMemoryAndTime) {
  wire::JobSpec spec;
  Result<JobShape> s = Shape(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->request.nodes, 1u);
  EXPECT_TRUE(s->request.nodes_fixed);
  EXPECT_EQ(s->request.tasks, 1u);
  EXPECT_EQ(s->request.cpus_per_task, 1u);
  EXPECT_EQ(s->request.memory, sched::MemoryRule::kPerCpu);
  EXPECT_EQ(s->request.mem_mb, 1000u);
  EXPECT_EQ(s->time_limit_s, 3600);
  EXPECT_EQ(s->partition_reason, "");
}

TEST_F(JobShapeTest, NoMultithreadHintIsOneThreadACore) {
  wire::JobSpec spec;
  EXPECT_EQ(Shape(spec)->request.threads_per_core, 0u);
  spec.set_hint("nomultithread");
  EXPECT_EQ(Shape(spec)->request.threads_per_core, 1u);
  spec.set_hint("compute_bound");
  EXPECT_EQ(Shape(spec)->request.threads_per_core, 0u);
  spec.set_hint("");
  spec.set_threads_per_core(1);
  EXPECT_EQ(Shape(spec)->request.threads_per_core, 1u);
}

TEST_F(JobShapeTest, GpuDenominators) {
  wire::JobSpec spec;
  spec.set_gres("gpu:a100:2");
  Result<JobShape> s = Shape(spec);
  EXPECT_EQ(s->request.gpus_per_node, 2u);
  EXPECT_EQ(s->request.gpu_type, model_.gpu_types.Find("a100"));
  spec.clear_gres();
  spec.set_min_nodes(2);
  spec.set_gpus("5");
  s = Shape(spec);
  EXPECT_EQ(s->request.gpus_per_job, 5u);
  EXPECT_EQ(s->request.gpu_type, sched::GpuTypes::kAny);
  EXPECT_EQ(s->total_gpus, 6u);  // Estimate while pending: 3 per node
  spec.clear_gpus();
  spec.set_ntasks_per_node(4);
  spec.set_gpus_per_task("1");
  spec.set_mem_per_gpu_mb(10000);
  s = Shape(spec);
  EXPECT_EQ(s->request.gpus_per_task, 1u);
  EXPECT_EQ(s->request.tasks_per_node, 4u);
  EXPECT_EQ(s->request.memory, sched::MemoryRule::kPerGpu);
  EXPECT_EQ(s->total_gpus, 8u);
  EXPECT_EQ(s->num_tasks, 8u);
  spec.Clear();
  spec.set_gpus("4");
  spec.set_ntasks_per_gpu(2);
  EXPECT_EQ(Shape(spec)->num_tasks, 8u);
  spec.Clear();
  spec.set_num_tasks(6);
  spec.set_ntasks_per_gpu(2);
  EXPECT_EQ(Shape(spec)->request.gpus_per_job, 3u);
}

TEST_F(JobShapeTest, TasksWithoutANodeCountSpreadFreely) {
  wire::JobSpec spec;
  spec.set_num_tasks(100);
  Result<JobShape> s = Shape(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->request.nodes_fixed);
  EXPECT_EQ(s->nodes, 4u);   // Estimate: 100 CPUs over 32-CPU nodes
  spec.set_num_tasks(1000);  // 128 CPUs in all
  EXPECT_EQ(Shape(spec).status().message(), kNodeConfigNotAvailable);
  spec.set_num_tasks(8);
  spec.set_min_nodes(8);  // More nodes than the partition has: pends
  EXPECT_EQ(Shape(spec)->partition_reason, "PartitionConfig");
  spec.set_num_tasks(1);
  spec.set_min_nodes(2);
  EXPECT_EQ(Shape(spec, "small")->partition_reason, "PartitionNodeLimit");
}

// -O: CPUs for one task per node (its -c each), whatever the task count;
// the per-node task count is ignored, as in Slurm.
TEST_F(JobShapeTest, OvercommitHoldsOneTasksCpusPerNode) {
  wire::JobSpec spec;
  spec.set_num_tasks(1000);  // Never fits 128 CPUs, one CPU each
  spec.set_min_nodes(2);
  spec.set_cpus_per_task(2);
  EXPECT_EQ(Shape(spec).status().message(), kNodeConfigNotAvailable);
  spec.set_overcommit(true);
  Result<JobShape> s = Shape(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->num_tasks, 1000u);  // What the job's tasks are told (SLURM_NTASKS)
  EXPECT_EQ(s->nodes, 2u);
  EXPECT_EQ(s->request.tasks, 2u);
  EXPECT_EQ(s->total_cpus, 4u);
  spec.set_ntasks_per_node(500);
  s = Shape(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->request.tasks_per_node, 0u);
  EXPECT_EQ(s->total_cpus, 4u);
}

TEST_F(JobShapeTest, SwitchesAndBindingFlags) {
  wire::JobSpec spec;
  spec.set_switches("1@10:00");
  spec.set_gres_flags("enforce-binding");
  Result<JobShape> s = Shape(spec);
  EXPECT_EQ(s->request.max_leaf_switches, 1u);
  EXPECT_EQ(s->switches_wait_s, 600);
  EXPECT_TRUE(s->request.enforce_binding);
  spec.set_switches("2");
  EXPECT_EQ(Shape(spec)->switches_wait_s, -1);
}

TEST_F(JobShapeTest, RefusesWhatCanNeverRun) {
  wire::JobSpec spec;
  spec.set_gres("gpu:9");
  EXPECT_EQ(Shape(spec).status().message(), kNodeConfigNotAvailable);
  spec.set_gres("gpu:v100:1");
  EXPECT_EQ(Shape(spec).status().message(), kNodeConfigNotAvailable);
  spec.set_gres("nic:1");
  EXPECT_EQ(Shape(spec).status().message(), kInvalidGres);
  spec.clear_gres();
  spec.set_mem_per_node_mb(600 * 1024);
  EXPECT_EQ(Shape(spec).status().message(),
            std::string(kMemoryNotSatisfiable) + "\n" + kNodeConfigNotAvailable);
  spec.clear_mem_per_node_mb();
  spec.set_constraint("h100");
  EXPECT_EQ(Shape(spec).status().message(), kInvalidFeature);
  spec.set_constraint("a100&ib");
  EXPECT_TRUE(Shape(spec).ok());
  spec.clear_constraint();
  spec.set_nodelist("g9");
  EXPECT_EQ(Shape(spec).status().message(), kInvalidNodeName);
  spec.set_nodelist("g2");
  EXPECT_EQ(Shape(spec, "small").status().message(), kNodeConfigNotAvailable);
}

TEST_F(JobShapeTest, TimeLimitOverMaxTimePends) {
  wire::JobSpec spec;
  spec.set_time_limit_s(2 * 86400);
  EXPECT_EQ(Shape(spec)->partition_reason, "PartitionTimeLimit");
  spec.set_time_limit_s(-1);
  EXPECT_EQ(Shape(spec)->partition_reason, "PartitionTimeLimit");
  EXPECT_EQ(Shape(spec, "small")->partition_reason, "");  // MaxTime UNLIMITED
}

}  // namespace
}  // namespace rota::ctld
