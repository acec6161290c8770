#include "cli/step/multi_prog.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace rota::cli {
namespace {

// Runs the command as task `rank` would (SLURM_PROCID set) and returns what
// it printed, stdout and stderr, with its exit status.
std::string RunAsTask(const std::vector<std::string>& command, uint32_t rank, int* status) {
  std::string line = "SLURM_PROCID=" + std::to_string(rank);
  // The script is the third word; sh -c takes it, the fourth is $0.
  std::string quoted;
  for (const std::string& word : command) {
    quoted += " '";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
  }
  FILE* pipe = popen(("env " + line + quoted + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 256> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

TEST(MultiProgTest, EachRankRunsItsLineWithItsRankAndOffset) {
  Result<std::vector<std::string>> command = MultiProgCommand(
      "# rank 0 leads\n"
      "0      echo leader %t\n"
      "1-2,4  echo 'worker number' %o rank=%t  # trailing comment\n"
      "\n"
      "*      printf '%s\\n' \"rest %t\"\n",
      "/home/ada/mp.conf", 6);
  ASSERT_TRUE(command.ok()) << command.status().message();
  EXPECT_EQ((*command)[0], "/bin/sh");
  EXPECT_EQ((*command)[3], "mp.conf");
  int status = 0;
  EXPECT_EQ(RunAsTask(*command, 0, &status), "leader 0\n");
  EXPECT_EQ(RunAsTask(*command, 2, &status), "worker number 1 rank=2\n");
  EXPECT_EQ(RunAsTask(*command, 4, &status), "worker number 2 rank=4\n");
  // "*" takes 3 and 5, the ranks no line names, in order.
  EXPECT_EQ(RunAsTask(*command, 3, &status), "rest 3\n");
  EXPECT_EQ(RunAsTask(*command, 5, &status), "rest 5\n");
  EXPECT_EQ(status, 0);
}

TEST(MultiProgTest, WithoutATaskCountAStarLineUsesTheRankAndOthersFail) {
  Result<std::vector<std::string>> star = MultiProgCommand("* echo any %t\n", "f", 0);
  ASSERT_TRUE(star.ok());
  int status = 0;
  EXPECT_EQ(RunAsTask(*star, 7, &status), "any 7\n");

  Result<std::vector<std::string>> two = MultiProgCommand("0-1 echo \"it's\" %t\n", "f", 0);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(RunAsTask(*two, 1, &status), "it's 1\n");
  EXPECT_EQ(RunAsTask(*two, 2, &status), "srun: error: f: no program for task 2\n");
  EXPECT_EQ(status, 1);
}

TEST(MultiProgTest, FilesThatCannotServeTheStepAreRefused) {
  EXPECT_EQ(MultiProgCommand("0 true\n2 true\n", "mp.conf", 3).status().message(),
            "Configuration file mp.conf invalid, no record for task id 1");
  EXPECT_EQ(MultiProgCommand("0-1 true\n1 false\n", "mp.conf", 2).status().message(),
            "Configuration file mp.conf invalid, duplicate record for task 1");
  EXPECT_EQ(MultiProgCommand("0-3 true\n", "mp.conf", 2).status().message(),
            "Configuration file mp.conf invalid, task rank 2 is not below the step's 2 tasks");
  EXPECT_EQ(MultiProgCommand("x true\n", "mp.conf", 0).status().message(),
            "Configuration file mp.conf invalid, line 1: bad task ranks x");
  EXPECT_EQ(MultiProgCommand("\n0\n", "mp.conf", 0).status().message(),
            "Configuration file mp.conf invalid, line 2: no program for the ranks");
  EXPECT_EQ(MultiProgCommand("0 echo 'open\n", "mp.conf", 0).status().message(),
            "Configuration file mp.conf invalid, line 1: unmatched quote");
}

}  // namespace
}  // namespace rota::cli
