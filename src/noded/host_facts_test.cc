#include "noded/host_facts.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(HostFactsTest, ReadsBootTimeAndMemory) {
  EXPECT_EQ(ParseBootTime("cpu  1 2 3\nctxt 99\nbtime 1700000000\nprocesses 5\n"), 1700000000);
  EXPECT_FALSE(ParseBootTime("cpu 1\n"));
  EXPECT_EQ(ParseMemTotalMb("MemTotal:       16318132 kB\nMemFree: 1 kB\n"), 15935u);
  EXPECT_FALSE(ParseMemTotalMb("MemFree: 1 kB\n"));
}

TEST(HostFactsTest, ThisHostHasSome) {
  std::string hwloc_error = "not cleared";
  HostFacts facts = ReadHostFacts(&hwloc_error);
  EXPECT_EQ(hwloc_error, "");
  EXPECT_GT(facts.boot_time, 0);
  EXPECT_GT(facts.cpus, 0u);
  EXPECT_GT(facts.memory_mb, 0u);
  EXPECT_EQ(facts.sockets * facts.cores_per_socket * facts.threads_per_core, facts.cpus);
}

}  // namespace
}  // namespace rota::noded
