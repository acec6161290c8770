// EpilogSlurmctld and PrologSlurmctld with a real rotactld (no node daemons:
// the test registers the nodes and reports the job's end): the controller
// runs the epilog once a job's allocation ends, with the job's variables, and
// not for a job cancelled before it ever held nodes; the prolog before each
// job starts, requeueing or cancelling the job when it fails.
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

// PrologSlurmctld: a job runs once it succeeded; one whose prolog fails is
// requeued, or cancelled when it may not be requeued.
TEST(PrologSlurmctldTest, GatesTheStartOfEachJob) {
  const std::string script = Base() + ".prolog";
  std::ofstream(script)
      << "#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_JOB_NAME $SLURM_SCRIPT_CONTEXT\" >> " << Base()
      << ".log\n[ \"$SLURM_JOB_NAME\" != bad ]\n";
  chmod(script.c_str(), 0755);
  ControllerProcess ctld("PrologSlurmctld=" + script + "\n");
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  testing::RegisterFakeNodes(ctld, {"n1", "n2", "n3", "n4"});
  ASSERT_EQ(ctld.Run("sbatch --parsable -J good --wrap=true").out, "1\n");
  ASSERT_EQ(ctld.Run("sbatch --parsable -J bad --no-requeue --wrap=true").out, "2\n");
  ASSERT_EQ(ctld.Run("sbatch --parsable -J bad --requeue --wrap=true").out, "3\n");
  EXPECT_TRUE(testing::WaitForJobState(ctld, "2", "CANCELLED")) << ctld.Log();
  EXPECT_TRUE(testing::WaitForJobState(ctld, "1", "RUNNING"));
  // Job 3 goes back to the queue each time its prolog fails.
  bool requeued = false;
  for (int i = 0; i < 200 && !requeued; ++i) {
    requeued = ctld.Run("scontrol show job 3").out.find("Restarts=0") == std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(requeued) << ctld.Run("scontrol show job 3").out;
  const std::string log = LogText();
  EXPECT_NE(log.find("1 good prolog_slurmctld\n"), std::string::npos) << log;
  EXPECT_NE(log.find("2 bad prolog_slurmctld\n"), std::string::npos) << log;
  ctld.Kill(SIGTERM);
  std::filesystem::remove(script);
  std::filesystem::remove(Base() + ".log");
}

}  // namespace
}  // namespace rota
