#include "noded/job_environment.h"

#include <gtest/gtest.h>

#include <map>

#include "model/job_variables.h"
#include "testing/config_files.h"

namespace rota::noded {
namespace {

std::map<std::string, std::string> AsMap(const std::vector<std::string>& env) {
  std::map<std::string, std::string> out;
  for (const std::string& e : env) {
    size_t eq = e.find('=');
    EXPECT_TRUE(out.emplace(e.substr(0, eq), e.substr(eq + 1)).second) << "duplicate " << e;
  }
  return out;
}

struct Fixture {
  wire::JobLaunch job;
  wire::JobPayload payload;
  JobEnvironmentInput input;
  Fixture() {
    job.set_job_id(7);
    job.add_nodes("gpu02");
    job.add_nodes("gpu01");
    job.set_cpus_per_node(4);
    job.set_restart_count(2);
    wire::JobSpec& spec = *job.mutable_spec();
    spec.set_name("train");
    spec.set_user("alice");
    spec.set_uid(1001);
    spec.set_gid(1002);
    spec.set_partition("gpu");
    spec.set_work_dir("/home/alice");
    payload.add_environment("PATH=/usr/bin");
    payload.add_environment("SLURM_JOB_ID=999");  // Stale, from the submitter's own job.
    input.job = &job;
    input.payload = &payload;
    input.cluster_name = "c1";
    input.node_name = "gpu01";
  }
};

TEST(JobEnvironmentTest, ExportedVariablesThenSlurmsOverridingThem) {
  Fixture f;
  std::vector<std::string> env = BuildJobEnvironment(f.input);
  EXPECT_EQ(env[0], "PATH=/usr/bin");
  EXPECT_EQ(env[1], "SLURM_JOB_ID=7");  // Kept its place, took the job's value.
  auto m = AsMap(env);
  EXPECT_EQ(m["SLURM_JOBID"], "7");
  EXPECT_EQ(m["SLURM_JOB_NAME"], "train");
  EXPECT_EQ(m["SLURM_JOB_USER"], "alice");
  EXPECT_EQ(m["SLURM_JOB_UID"], "1001");
  EXPECT_EQ(m["SLURM_JOB_PARTITION"], "gpu");
  EXPECT_EQ(m["SLURM_JOB_NODELIST"], "gpu[01-02]");
  EXPECT_EQ(m["SLURM_NODELIST"], "gpu[01-02]");
  EXPECT_EQ(m["SLURM_JOB_NUM_NODES"], "2");
  EXPECT_EQ(m["SLURM_NNODES"], "2");
  EXPECT_EQ(m["SLURM_CPUS_ON_NODE"], "4");
  EXPECT_EQ(m["SLURM_SUBMIT_DIR"], "/home/alice");
  EXPECT_EQ(m["SLURM_CLUSTER_NAME"], "c1");
  EXPECT_EQ(m["SLURM_RESTART_COUNT"], "2");
  EXPECT_EQ(m.count("SLURM_ARRAY_TASK_ID"), 0u);
  EXPECT_EQ(m.count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(JobEnvironmentTest, PerNodeCountsAsSlurmWritesThem) {
  EXPECT_EQ(model::FormatPerNodeCounts({8}), "8");
  EXPECT_EQ(model::FormatPerNodeCounts({8, 8, 2}), "8(x2),2");
  EXPECT_EQ(model::FormatPerNodeCounts({4, 2, 2, 2, 4}), "4,2(x3),4");
  EXPECT_EQ(model::FormatPerNodeCounts({}), "");
}

TEST(JobEnvironmentTest, ArrayTasksAndGpus) {
  Fixture f;
  f.job.set_array_job_id(5);
  f.job.set_array_task_id(3);
  f.input.gpu_indices = {1, 3};
  f.input.devices_constrained = true;
  auto m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_ARRAY_JOB_ID"], "5");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_ID"], "3");
  EXPECT_EQ(m["SLURM_GPUS_ON_NODE"], "2");
  EXPECT_EQ(m["SLURM_JOB_GPUS"], "1,3");
  EXPECT_EQ(m["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(m["GPU_DEVICE_ORDINAL"], "0,1");
  EXPECT_EQ(m["ROCR_VISIBLE_DEVICES"], "0,1");
  f.input.devices_constrained = false;
  m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["CUDA_VISIBLE_DEVICES"], "1,3");
}

// What the job asked for reaches the script, so that srun inside it takes
// the same options; what it did not ask for stays unset.
TEST(JobEnvironmentTest, RequestedGpuOptionsOnlyThoseGiven) {
  Fixture f;
  auto m = AsMap(BuildJobEnvironment(f.input));
  for (const char* unset :
       {"SLURM_GPU_BIND", "SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK",
        "SLURM_GPUS_PER_SOCKET", "SLURM_CPUS_PER_GPU", "SLURM_MEM_PER_GPU", "SLURM_NTASKS_PER_GPU",
        "SLURM_GPU_FREQ", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_CPUS_PER_TASK"}) {
    EXPECT_EQ(m.count(unset), 0u) << unset;
  }
  wire::JobSpec& spec = *f.job.mutable_spec();
  spec.set_num_tasks(2);
  spec.set_gpu_bind("closest");
  spec.set_gpus_per_task("1");
  spec.set_gpus_per_node("a100:2");
  spec.set_gpu_freq("high");
  spec.set_mem_per_gpu_mb(1024);
  f.input.gpu_indices = {0, 1};
  m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_GPU_BIND"], "closest");
  EXPECT_EQ(m["SLURM_GPUS_PER_TASK"], "1");
  EXPECT_EQ(m["SLURM_GPUS_PER_NODE"], "a100:2");
  EXPECT_EQ(m["SLURM_GPU_FREQ"], "high");
  EXPECT_EQ(m["SLURM_MEM_PER_GPU"], "1024");
  EXPECT_EQ(m["SLURM_NTASKS"], "2");
  EXPECT_EQ(m["SLURM_NPROCS"], "2");
  EXPECT_EQ(m["ZE_AFFINITY_MASK"], "0,1");
  EXPECT_EQ(m.count("SLURM_MEM_PER_NODE"), 0u);
}

TEST(JobEnvironmentTest, TasksPerNodeFromTheAllocationOrItsCpus) {
  Fixture f;
  for (uint32_t cpus : {4u, 2u}) {
    wire::NodeAlloc& a = *f.job.add_allocs();
    a.set_cpus(cpus);
    a.set_tasks(1);
  }
  // No task count asked: one task per CPU (per --cpus-per-task CPUs).
  auto m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_TASKS_PER_NODE"], "4,2");
  EXPECT_EQ(m["SLURM_JOB_CPUS_PER_NODE"], "4,2");
  f.job.mutable_spec()->set_cpus_per_task(2);
  EXPECT_EQ(AsMap(BuildJobEnvironment(f.input))["SLURM_TASKS_PER_NODE"], "2,1");
  // -n: the allocation's layout.
  f.job.mutable_spec()->set_num_tasks(3);
  f.job.mutable_allocs(0)->set_tasks(2);
  m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_TASKS_PER_NODE"], "2,1");
  EXPECT_EQ(m["SLURM_NTASKS"], "3");
  EXPECT_EQ(m["SLURM_CPUS_PER_TASK"], "2");
}

TEST(JobEnvironmentTest, MemoryAsAskedElseTheAllocations) {
  Fixture f;
  f.job.add_mem_by_node_mb(400);
  f.job.add_mem_by_node_mb(400);
  auto m = AsMap(BuildJobEnvironment(f.input));  // No default: the whole node's.
  EXPECT_EQ(m["SLURM_MEM_PER_NODE"], "400");
  EXPECT_EQ(m.count("SLURM_MEM_PER_CPU"), 0u);
  f.input.default_mem_per_cpu_mb = 200;  // DefMemPerCPU=200 gave it.
  m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_MEM_PER_CPU"], "200");
  EXPECT_EQ(m.count("SLURM_MEM_PER_NODE"), 0u);
  wire::JobSpec& spec = *f.job.mutable_spec();
  spec.set_mem_per_cpu_mb(100);
  m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_MEM_PER_CPU"], "100");
  EXPECT_EQ(m.count("SLURM_MEM_PER_NODE"), 0u);
  spec.set_mem_per_cpu_mb(0);
  spec.set_mem_given(true);
  spec.set_mem_per_node_mb(300);
  EXPECT_EQ(AsMap(BuildJobEnvironment(f.input))["SLURM_MEM_PER_NODE"], "300");
  spec.set_mem_per_node_mb(0);  // --mem=0: the node's memory, as allocated.
  EXPECT_EQ(AsMap(BuildJobEnvironment(f.input))["SLURM_MEM_PER_NODE"], "400");
}

TEST(JobEnvironmentTest, DefaultMemPerCpuOfThePartitionElseTheClusters) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir, testing::ConfigFiles(std::string(testing::kMinimalHead) +
                                    "DefMemPerCPU=100\nNodeName=a1 CPUs=2\n"
                                    "PartitionName=p Nodes=ALL DefMemPerCPU=300\n"
                                    "PartitionName=q Nodes=ALL\n",
                                ""));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ(DefaultMemPerCpuMb(**loaded.config, "p"), 300u);
  EXPECT_EQ(DefaultMemPerCpuMb(**loaded.config, "q"), 100u);
  EXPECT_EQ(DefaultMemPerCpuMb(**loaded.config, "gone"), 100u);
}

TEST(JobEnvironmentTest, TheWholeArraySet) {
  Fixture f;
  f.job.set_array_job_id(5);
  f.job.set_array_task_id(7);
  f.job.mutable_spec()->set_array("1-9:2");
  auto m = AsMap(BuildJobEnvironment(f.input));
  EXPECT_EQ(m["SLURM_ARRAY_JOB_ID"], "5");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_ID"], "7");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_COUNT"], "5");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MIN"], "1");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MAX"], "9");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_STEP"], "2");
}

}  // namespace
}  // namespace rota::noded
