// A real fork and exec of /bin/sh: output, exit status, a program that cannot
// be run, and a timeout that kills what the program started.
#include "common/captured_program.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

namespace rota {
namespace {

using std::chrono::milliseconds;

TEST(CapturedProgramTest, OutputAndExitStatusWithTheGivenEnvironment) {
  CapturedRun run = RunCaptured({"/bin/sh", "-c", "echo out $GREETING; echo err >&2; exit 3"},
                                {"GREETING=hello"}, milliseconds(10'000));
  EXPECT_TRUE(run.start_error.empty());
  EXPECT_FALSE(run.timed_out);
  ASSERT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(WEXITSTATUS(run.wait_status), 3);
  EXPECT_EQ(run.output, "out hello\nerr\n");
}

TEST(CapturedProgramTest, AMissingProgramExitsWith127) {
  CapturedRun run = RunCaptured({"/nonexistent/program"}, {}, milliseconds(10'000));
  ASSERT_TRUE(WIFEXITED(run.wait_status));
  EXPECT_EQ(WEXITSTATUS(run.wait_status), 127);
  EXPECT_TRUE(run.output.empty());
}

TEST(CapturedProgramTest, TimeoutKillsTheProgramAndWhatItStarted) {
  // The background sleep holds the output pipe open: without the group kill
  // the read would never end.
  CapturedRun run =
      RunCaptured({"/bin/sh", "-c", "sleep 30 & echo started; sleep 30"}, {}, milliseconds(300));
  EXPECT_TRUE(run.timed_out);
  ASSERT_TRUE(WIFSIGNALED(run.wait_status));
  EXPECT_EQ(WTERMSIG(run.wait_status), SIGKILL);
  EXPECT_EQ(run.output, "started\n");
}

TEST(CapturedProgramTest, OutputIsCappedAt64KiB) {
  CapturedRun run =
      RunCaptured({"/bin/sh", "-c", "yes x | head -c 200000"}, {}, milliseconds(10'000));
  EXPECT_FALSE(run.timed_out);
  EXPECT_GE(run.output.size(), 64u * 1024);
  EXPECT_LT(run.output.size(), 64u * 1024 + 4096);
}

}  // namespace
}  // namespace rota
