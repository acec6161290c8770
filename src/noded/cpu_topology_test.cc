#include "noded/cpu_topology.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace rota::noded {
namespace {

std::string ReadProcCpuInfo() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HostCpuTopologyTest, ParsesCpuInfo) {
  // Two sockets of two cores with two threads each: 8 CPUs.
  std::string text;
  int processor = 0;
  for (int socket = 0; socket < 2; ++socket) {
    for (int thread = 0; thread < 2; ++thread) {
      for (int core = 0; core < 2; ++core) {
        text += "processor\t: " + std::to_string(processor++) + "\nmodel name\t: X\n";
        text += "physical id\t: " + std::to_string(socket) + "\n";
        text += "core id\t\t: " + std::to_string(core * 4) + "\n\n";
      }
    }
  }
  std::optional<CpuTopology> t = ParseCpuInfoTopology(text);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, (CpuTopology{2, 2, 2, 8, 0}));
}

TEST(HostCpuTopologyTest, CpuInfoWithoutIdsIsOneSocketOfSingleThreadCores) {
  std::optional<CpuTopology> t =
      ParseCpuInfoTopology("processor : 0\nBogoMIPS : 50\n\nprocessor : 1\nBogoMIPS : 50\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, (CpuTopology{1, 2, 1, 2, 0}));
  EXPECT_FALSE(ParseCpuInfoTopology("nothing here\n"));
}

TEST(HostCpuTopologyTest, HwlocAgreesWithProcCpuInfoOnThisHost) {
  auto hwloc = ReadCpuTopologyWithHwloc();
  ASSERT_TRUE(hwloc.ok()) << hwloc.status().message();
  EXPECT_GT(hwloc->memory_mb, 0u);
  EXPECT_EQ(hwloc->sockets * hwloc->cores_per_socket * hwloc->threads_per_core, hwloc->cpus);
  std::optional<CpuTopology> proc = ParseCpuInfoTopology(ReadProcCpuInfo());
  ASSERT_TRUE(proc);
  EXPECT_EQ(hwloc->cpus, proc->cpus);
  // Not every architecture's /proc/cpuinfo names sockets and cores.
  if (ReadProcCpuInfo().find("physical id") != std::string::npos) {
    EXPECT_EQ(hwloc->sockets, proc->sockets);
    EXPECT_EQ(hwloc->cores_per_socket, proc->cores_per_socket);
    EXPECT_EQ(hwloc->threads_per_core, proc->threads_per_core);
  }
}

}  // namespace
}  // namespace rota::noded
