// A signal another user sends to a job's step tasks is refused by the node,
// and the refusal reaches them (it used to be answered OK with nothing done).
// The user is made for the test with useradd and signs with the cluster's key
// (as in private_data_test.cc).
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::WaitUntil;

class StepSignalTest : public testing::TwoNodeClusterTest {
 protected:
  StepSignalTest() : user_("rotass" + std::to_string(getpid())) {}

  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(std::system(("useradd -M -N -s /bin/sh " + user_ + " 2>/dev/null").c_str()), 0);
    made_user_ = true;
    passwd* pw = getpwnam(user_.c_str());
    ASSERT_NE(pw, nullptr);
    ASSERT_EQ(chmod(cluster_->dir().path().c_str(), 0755), 0);
    ASSERT_EQ(chown((cluster_->dir().path() / "slurm.key").c_str(), pw->pw_uid, 0), 0);
  }
  void TearDown() override {
    TwoNodeClusterTest::TearDown();
    if (made_user_) std::system(("userdel " + user_ + " 2>/dev/null").c_str());
  }
  CommandResult AsUser(const std::string& command_line) const {
    return cluster_->Run("su -s /bin/sh " + user_ + " -c \"SLURM_CONF=" + cluster_->conf() + " " +
                         testing::BinDir() + "/" + command_line + "\"");
  }

  std::string user_;
  bool made_user_ = false;
};

TEST_F(StepSignalTest, AnotherUsersSignalToAStepIsRefused) {
  CommandResult r = cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() +
                                  " --wrap='SLURM_CONF=" + cluster_->conf() + " " +
                                  testing::BinDir() + "/srun sleep 300; echo rc=$?'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string id(Trim(r.out));
  std::string steps;
  ASSERT_TRUE(WaitUntil(
      [&] {
        steps = cluster_->Run("squeue -h -s").out;
        return steps.find(id + ".0") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << steps << Output(id);

  CommandResult refused = AsUser("scancel " + id + ".0");
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.out.find("Kill job error on job step id " + id + ".0: "), std::string::npos)
      << refused.out;
  EXPECT_NE(refused.out.find("Invalid user id"), std::string::npos) << refused.out;
  EXPECT_NE(cluster_->Run("squeue -h -s").out.find(id + ".0"), std::string::npos);

  // Its owner's signal still reaches it.
  CommandResult own = cluster_->Run("scancel " + id + ".0");
  EXPECT_EQ(own.exit_code, 0) << own.out;
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  EXPECT_NE(Output(id).find("rc=137\n"), std::string::npos) << Output(id);
}

// scancel -s reaches the job's steps, not its batch script; -b the batch
// script alone; -f both (as Slurm's scancel does).
TEST_F(StepSignalTest, ScancelsSignalReachesTheStepsTheBatchScriptOrBoth) {
  const std::string srun = "SLURM_CONF=" + cluster_->conf() + " " + testing::BinDir() + "/srun";
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo SHELL_USR1' USR1\n" +
      srun +
      " sh -c 'trap \"echo STEP_USR1\" USR1; echo STEP_READY; "
      "while true; do sleep 0.1; done' &\n"
      "while true; do sleep 0.1; done\n";
  const std::string path = cluster_->work_dir() + "/signalled.sh";
  std::ofstream(path) << script;
  CommandResult r = cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string id(Trim(r.out));
  auto count = [&](const std::string& word) {
    const std::string out = Output(id);
    size_t n = 0;
    for (size_t at = out.find(word); at != std::string::npos; at = out.find(word, at + 1)) ++n;
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return count("STEP_READY") == 1; }, std::chrono::seconds(30)))
      << Output(id);

  ASSERT_EQ(cluster_->Run("scancel -s USR1 " + id).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return count("STEP_USR1") == 1; })) << Output(id);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(count("SHELL_USR1"), 0u) << "the batch script is not a step\n" << Output(id);

  ASSERT_EQ(cluster_->Run("scancel -b -s USR1 " + id).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return count("SHELL_USR1") == 1; })) << Output(id);
  EXPECT_EQ(count("STEP_USR1"), 1u) << Output(id);

  ASSERT_EQ(cluster_->Run("scancel -f -s USR1 " + id).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return count("SHELL_USR1") == 2 && count("STEP_USR1") >= 2; }))
      << Output(id);

  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  EXPECT_TRUE(WaitForState(id, "CANCELLED")) << Output(id);
}

// scancel -i asks before each job and cancels those answered yes.
TEST_F(StepSignalTest, InteractiveScancelAsksBeforeEachJob) {
  auto submit = [&] {
    CommandResult r = cluster_->Run("sbatch --parsable -J asked --chdir=" + cluster_->work_dir() +
                                    " --wrap='sleep 300'");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  };
  const std::string kept = submit(), cancelled = submit();
  ASSERT_TRUE(WaitForState(kept, "RUNNING"));
  ASSERT_TRUE(WaitForState(cancelled, "RUNNING"));
  CommandResult r =
      cluster_->Run("printf 'no\\nperhaps\\nyes\\n' | SLURM_CONF=" + cluster_->conf() + " " +
                    testing::BinDir() + "/scancel -i " + kept + " " + cancelled);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string ask = " name=asked partition=batch [y/n]? ";
  EXPECT_EQ(r.out, "Cancel job_id=" + kept + ask + "Cancel job_id=" + cancelled + ask +
                       "Cancel job_id=" + cancelled + ask);
  EXPECT_TRUE(WaitForState(cancelled, "CANCELLED"));
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + kept).out), "RUNNING");
  ASSERT_EQ(cluster_->Run("scancel " + kept).exit_code, 0);
}

}  // namespace
}  // namespace rota
