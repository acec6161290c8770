#include "noded/stepd/task_mem_binding.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

using Nodes = std::vector<std::vector<uint32_t>>;

// A host of 2 NUMA nodes: CPUs 0-3 on node 0, 4-7 on node 1; two tasks bound
// to CPU 1 and CPU 5.
TaskMemRequest TwoNodeHost() {
  TaskMemRequest r;
  r.local_tasks = 2;
  r.task_cpus = {{1}, {5}};
  r.step_cpus = {0, 1, 4, 5};
  for (uint32_t cpu = 0; cpu < 8; ++cpu) r.numa_node_of_cpu[cpu] = cpu < 4 ? 0 : 1;
  return r;
}

Result<TaskMemBinding> Bind(const std::string& text, const TaskMemRequest& request) {
  Result<MemBindSpec> spec = ParseMemBindSpec(text);
  if (!spec.ok()) return spec.status();
  return BindTaskMemory(*spec, request);
}

TEST(TaskMemBindingTest, EachKindGivesEachTaskItsNodes) {
  Result<TaskMemBinding> b = Bind("", TwoNodeHost());
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->bound());
  EXPECT_EQ(b->task_nodes, Nodes({{}, {}}));
  b = Bind("rank", TwoNodeHost());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_nodes, Nodes({{0}, {1}}));
  b = Bind("local", TwoNodeHost());  // The nodes of each task's CPUs
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_nodes, Nodes({{0}, {1}}));
  TaskMemRequest unbound = TwoNodeHost();
  unbound.task_cpus = {{}, {}};  // Not bound: the step's CPUs, on both nodes
  b = Bind("local", unbound);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_nodes, Nodes({{0, 1}, {0, 1}}));
  b = Bind("map_mem:1,0", TwoNodeHost());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->task_nodes, Nodes({{1}, {0}}));
  b = Bind("prefer,mask_mem:0x3", TwoNodeHost());  // Wraps round
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->prefer);
  EXPECT_EQ(b->task_nodes, Nodes({{0, 1}, {0, 1}}));
  b = Bind("map_mem:2", TwoNodeHost());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "--mem-bind: task 0 is given NUMA node 2, which this node lacks");
}

TEST(TaskMemBindingTest, EnvironmentAndVerboseLine) {
  Result<TaskMemBinding> b = Bind("verbose,map_mem:1,0", TwoNodeHost());
  ASSERT_TRUE(b.ok());
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : MemBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_MEM_BIND"], "verbose,map_mem:1,0");
  EXPECT_EQ(env["SLURM_MEM_BIND_TYPE"], "map_mem:");
  EXPECT_EQ(env["SLURM_MEM_BIND_LIST"], "1,0");
  EXPECT_EQ(env["SLURM_MEM_BIND_VERBOSE"], "verbose");
  EXPECT_EQ(env["SLURM_MEM_BIND_PREFER"], "");
  EXPECT_EQ(DescribeTaskMemory(*b, "n1", 3, 1, 4242),
            "mem-bind=MAP  - n1, task  3  1 [4242]: mask 0x1 set");
  b = Bind("local", TwoNodeHost());
  env.clear();
  for (const auto& [k, v] : MemBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_MEM_BIND"], "quiet,local");
  EXPECT_EQ(env["SLURM_MEM_BIND_LIST"], "0x1,0x2");
  b = Bind("none", TwoNodeHost());
  env.clear();
  for (const auto& [k, v] : MemBindEnvironment(*b)) env[k] = v;
  EXPECT_EQ(env["SLURM_MEM_BIND"], "quiet,none");
  EXPECT_EQ(env["SLURM_MEM_BIND_TYPE"], "none");
}

TEST(TaskMemBindingTest, TheHostsLayoutFromSysfs) {
  rota::testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "node0");
  std::filesystem::create_directories(dir.path() / "node1");
  std::filesystem::create_directories(dir.path() / "power");
  std::ofstream(dir.path() / "node0" / "cpulist") << "0-1,4\n";
  std::ofstream(dir.path() / "node1" / "cpulist") << "2-3\n";
  const std::map<uint32_t, uint32_t> layout = ReadNumaLayout(dir.path());
  EXPECT_EQ(layout, (std::map<uint32_t, uint32_t>{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 0}}));
  EXPECT_TRUE(ReadNumaLayout(dir.path() / "absent").empty());
}

}  // namespace
}  // namespace rota::noded
