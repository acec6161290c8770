#include "noded/cage/proc_cpu_time.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt
// cmajflt utime stime cutime cstime ...
std::string StatLine(const std::string& comm, int utime, int stime, int cutime, int cstime) {
  return "4242 (" + comm + ") S 1 4242 4242 0 -1 4194560 100 0 0 0 " + std::to_string(utime) + " " +
         std::to_string(stime) + " " + std::to_string(cutime) + " " + std::to_string(cstime) +
         " 20 0 1 0 12345 1000000 100\n";
}

TEST(ProcCpuTimeTest, UserAndSystemTimeIncludeReapedChildren) {
  EXPECT_EQ(ParseProcStatCpu(StatLine("sh", 150, 30, 50, 10), 100),
            (CageCpuTime{2'000'000, 400'000}));
}

TEST(ProcCpuTimeTest, ACommandNameWithSpacesAndParenthesesIsSkippedWhole) {
  EXPECT_EQ(ParseProcStatCpu(StatLine("a) S 9 9 (b", 1, 2, 3, 4), 100),
            (CageCpuTime{40'000, 60'000}));
}

TEST(ProcCpuTimeTest, WhatIsNoStatLineGivesNothing) {
  EXPECT_EQ(ParseProcStatCpu("", 100), std::nullopt);
  EXPECT_EQ(ParseProcStatCpu("4242 (sh) S 1 2 3", 100), std::nullopt);
  EXPECT_EQ(ParseProcStatCpu("4242 (sh) S 1 4242 4242 0 -1 0 0 0 0 0 x 2 3 4 20", 100),
            std::nullopt);
  EXPECT_EQ(ParseProcStatCpu(StatLine("sh", 1, 2, 3, 4), 0), std::nullopt);
}

TEST(ProcCpuTimeTest, SumsTheProcessesAndSkipsThoseGone) {
  testing::TempDir proc;
  proc.Write("10/stat", StatLine("sh", 100, 0, 0, 0));
  proc.Write("11/stat", StatLine("python3", 0, 0, 0, 100));
  const long hz = sysconf(_SC_CLK_TCK);
  const uint64_t second = 100 * (1'000'000 / static_cast<uint64_t>(hz));
  EXPECT_EQ(ProcessesCpuTime({10, 11, 12}, proc.path().string()), (CageCpuTime{second, second}));
  EXPECT_EQ(ProcessesCpuTime({12}, proc.path().string()), std::nullopt);
  EXPECT_EQ(ProcessesCpuTime({}, proc.path().string()), std::nullopt);
}

TEST(ProcCpuTimeTest, ReadsTheRealProc) {
  volatile uint64_t spin = 0;
  for (uint64_t i = 0; i < 50'000'000; ++i) spin = spin + i;
  std::optional<CageCpuTime> mine = ProcessesCpuTime({getpid()});
  ASSERT_TRUE(mine.has_value());
  EXPECT_GT(mine->user_us, 0u);
}

}  // namespace
}  // namespace rota::noded
