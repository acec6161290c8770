#include "model/job_variables.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

namespace rota::model {
namespace {

std::map<std::string, std::string> AsMap(const EnvVariables& vars) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : vars) {
    EXPECT_TRUE(out.emplace(name, value).second) << "twice: " << name;
  }
  return out;
}

TEST(RequestVariablesTest, NothingForOptionsNotGiven) {
  wire::JobSpec spec;
  spec.set_name("x");
  spec.set_gres("gpu:2");  // --gres sets none of the GPU variables (Slurm 22.05).
  EXPECT_TRUE(RequestVariables(spec).empty());
}

TEST(RequestVariablesTest, GpuOptionsAsTyped) {
  wire::JobSpec spec;
  spec.set_num_tasks(2);
  spec.set_gpus("3");
  spec.set_gpus_per_node("a100:2");
  spec.set_gpus_per_task("1");
  spec.set_gpus_per_socket("a100:1");
  spec.set_gpu_bind("closest");
  spec.set_gpu_freq("high,memory=low");
  spec.set_cpus_per_gpu(4);
  spec.set_ntasks_per_gpu(2);
  spec.set_mem_per_gpu_mb(10240);
  auto m = AsMap(RequestVariables(spec));
  EXPECT_EQ(m["SLURM_NTASKS"], "2");
  EXPECT_EQ(m["SLURM_NPROCS"], "2");
  EXPECT_EQ(m["SLURM_GPUS"], "3");
  EXPECT_EQ(m["SLURM_GPUS_PER_NODE"], "a100:2");
  EXPECT_EQ(m["SLURM_GPUS_PER_TASK"], "1");
  EXPECT_EQ(m["SLURM_GPUS_PER_SOCKET"], "a100:1");
  EXPECT_EQ(m["SLURM_GPU_BIND"], "closest");
  EXPECT_EQ(m["SLURM_GPU_FREQ"], "high,memory=low");
  EXPECT_EQ(m["SLURM_CPUS_PER_GPU"], "4");
  EXPECT_EQ(m["SLURM_NTASKS_PER_GPU"], "2");
  EXPECT_EQ(m["SLURM_MEM_PER_GPU"], "10240");
  EXPECT_EQ(m.count("SLURM_MEM_PER_NODE"), 0u);
  EXPECT_EQ(m.count("SLURM_MEM_PER_CPU"), 0u);
  EXPECT_EQ(m.count("SLURM_CPUS_PER_TASK"), 0u);
  EXPECT_EQ(m.count("SLURM_OVERCOMMIT"), 0u);
  spec.set_overcommit(true);
  spec.set_distribution("cyclic");
  EXPECT_EQ(AsMap(RequestVariables(spec))["SLURM_OVERCOMMIT"], "1");
  EXPECT_EQ(AsMap(RequestVariables(spec))["SLURM_DISTRIBUTION"], "cyclic");
}

TEST(RequestVariablesTest, TasksCpusAndMemory) {
  wire::JobSpec spec;
  spec.set_ntasks_per_node(4);
  spec.set_ntasks_per_socket(2);
  spec.set_cpus_per_task(3);
  spec.set_mem_per_cpu_mb(2048);
  auto m = AsMap(RequestVariables(spec));
  EXPECT_EQ(m.count("SLURM_NTASKS"), 0u);
  EXPECT_EQ(m["SLURM_NTASKS_PER_NODE"], "4");
  EXPECT_EQ(m["SLURM_NTASKS_PER_SOCKET"], "2");
  EXPECT_EQ(m.count("SLURM_NTASKS_PER_CORE"), 0u);
  EXPECT_EQ(m.count("SLURM_MEM_BIND"), 0u);
  // Binding options the job's steps read: srun takes them from here.
  spec.set_ntasks_per_core(1);
  spec.set_mem_bind("verbose,local");
  m = AsMap(RequestVariables(spec));
  EXPECT_EQ(m["SLURM_NTASKS_PER_CORE"], "1");
  EXPECT_EQ(m["SLURM_MEM_BIND"], "verbose,local");
  EXPECT_EQ(m["SLURM_MEM_BIND_VERBOSE"], "verbose");
  EXPECT_EQ(m["SLURM_CPUS_PER_TASK"], "3");
  EXPECT_EQ(m["SLURM_MEM_PER_CPU"], "2048");
  EXPECT_EQ(m.count("SLURM_MEM_PER_NODE"), 0u);

  wire::JobSpec mem;
  mem.set_mem_per_node_mb(8192);
  mem.set_mem_given(true);
  m = AsMap(RequestVariables(mem));
  EXPECT_EQ(m["SLURM_MEM_PER_NODE"], "8192");
  EXPECT_EQ(m.count("SLURM_MEM_PER_CPU"), 0u);
  // --mem=0: the amount is the node's, not known here.
  mem.set_mem_per_node_mb(0);
  EXPECT_EQ(AsMap(RequestVariables(mem)).count("SLURM_MEM_PER_NODE"), 0u);
}

TEST(ArrayVariablesTest, NoneOutsideAnArray) {
  wire::JobLaunch job;
  job.set_job_id(5);
  EXPECT_TRUE(ArrayVariables(job).empty());
}

TEST(ArrayVariablesTest, TheWholeArrayAndThisTask) {
  wire::JobLaunch job;
  job.set_job_id(12);
  job.set_array_job_id(10);
  job.set_array_task_id(3);
  job.mutable_spec()->set_array("1-9:2%2");
  auto m = AsMap(ArrayVariables(job));
  EXPECT_EQ(m["SLURM_ARRAY_JOB_ID"], "10");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_ID"], "3");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_COUNT"], "5");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MIN"], "1");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MAX"], "9");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_STEP"], "2");

  job.mutable_spec()->set_array("0,4,7-8");
  m = AsMap(ArrayVariables(job));
  EXPECT_EQ(m["SLURM_ARRAY_TASK_COUNT"], "4");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MIN"], "0");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_MAX"], "8");
  EXPECT_EQ(m["SLURM_ARRAY_TASK_STEP"], "1");

  // A record without its expression still names the task.
  job.mutable_spec()->clear_array();
  m = AsMap(ArrayVariables(job));
  EXPECT_EQ(m["SLURM_ARRAY_TASK_ID"], "3");
  EXPECT_EQ(m.count("SLURM_ARRAY_TASK_COUNT"), 0u);
}

TEST(LayoutVariablesTest, PerNodeCpusAndTasksInSlurmsCompressedForm) {
  EXPECT_EQ(FormatPerNodeCounts({8}), "8");
  EXPECT_EQ(FormatPerNodeCounts({8, 8, 2}), "8(x2),2");
  EXPECT_EQ(FormatPerNodeCounts({4, 2, 2, 2, 4}), "4,2(x3),4");
  EXPECT_EQ(FormatPerNodeCounts({}), "");

  wire::JobLaunch job;
  job.mutable_spec()->set_num_tasks(5);
  for (auto [node, cpus, tasks] : {std::tuple{"a", 4u, 2u}, {"b", 4u, 2u}, {"c", 2u, 1u}}) {
    job.add_nodes(node);
    wire::NodeAlloc* a = job.add_allocs();
    a->set_cpus(cpus);
    a->set_tasks(tasks);
  }
  EXPECT_EQ(LayoutVariables(job), (EnvVariables{{"SLURM_JOB_CPUS_PER_NODE", "4(x2),2"},
                                                {"SLURM_TASKS_PER_NODE", "2(x2),1"}}));
  // No task count asked: as many tasks as the CPUs hold, by --cpus-per-task.
  job.mutable_spec()->set_num_tasks(0);
  job.mutable_spec()->set_cpus_per_task(2);
  EXPECT_EQ(AllocationLayout(job).tasks, (std::vector<uint32_t>{2, 2, 1}));
}

}  // namespace
}  // namespace rota::model
