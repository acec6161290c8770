// EpilogSlurmctld with a real rotactld (no node daemons: the test registers
// the nodes and reports the job's end): the controller runs it once the job's
// allocation ends, with the job's variables, and not for a job cancelled
// before it ever held nodes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::ControllerProcess;

std::string Base() { return "/tmp/rota-epilogctld-" + std::to_string(getpid()); }

std::string Slurmconf() {
  const std::string script = Base() + ".epilog";
  std::ofstream(script) << "#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_JOB_NAME $SLURM_JOB_USER "
                           "$SLURM_JOB_NODELIST $SLURM_JOB_STATE $SLURM_JOB_EXIT_CODE2 "
                           "$SLURM_SCRIPT_CONTEXT uid=$(id -u)\" >> "
                        << Base() << ".log\n";
  chmod(script.c_str(), 0755);
  return "EpilogSlurmctld=" + script + "\n";
}

std::string LogText() {
  std::ifstream in(Base() + ".log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(EpilogSlurmctldTest, RunsWhenAnAllocationEnds) {
  ControllerProcess ctld(Slurmconf());
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  testing::RegisterFakeNodes(ctld, {"n1", "n2", "n3", "n4"});
  ASSERT_EQ(ctld.Run("sbatch --parsable -J ends -w n2 --wrap=true").out, "1\n");
  ASSERT_EQ(ctld.Run("sbatch --parsable -J never --hold --wrap=true").out, "2\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld, "1", "RUNNING"));
  EXPECT_EQ(LogText(), "");  // Nothing while the job runs
  testing::ReportJobExit(ctld, 1, 4 << 8);
  ASSERT_TRUE(testing::WaitForJobState(ctld, "1", "FAILED"));
  EXPECT_EQ(ctld.Run("scancel 2").exit_code, 0);
  const std::string expected = "1 ends root n2 FAILED 4:0 epilog_slurmctld uid=0\n";
  for (int i = 0; i < 200 && LogText() != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(LogText(), expected) << ctld.Log();
  ctld.Kill(SIGTERM);
  std::filesystem::remove(Base() + ".epilog");
  std::filesystem::remove(Base() + ".log");
}

}  // namespace
}  // namespace rota
