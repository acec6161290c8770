// What an ordinary user may not slip past a real rotactld, each refused with
// Slurm's words: a negative --nice, a --deadline already past, a script or
// environment over SchedulerParameters=max_script_size (sbatch /dev/zero
// included), another user's jobs cancelled with "scancel -u" without a word,
// a job made to depend on itself, and "squeue -j abc". The user is made for
// the test with useradd and signs with the cluster's key (as in
// private_data_test.cc).
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

constexpr char kTooLong[] =
    "sbatch: error: Batch job submission failed: "
    "Pathname of a file, directory or other parameter too long\n";

class JobInputTest : public ::testing::Test {
 protected:
  JobInputTest()
      : ctld_("SchedulerParameters=max_script_size=2000\n"),
        user_("rotaji" + std::to_string(getpid())) {}

  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "this test makes a user and runs commands as them";
    ASSERT_EQ(std::system(("useradd -M -N -s /bin/sh " + user_ + " 2>/dev/null").c_str()), 0);
    made_user_ = true;
    passwd* pw = getpwnam(user_.c_str());
    ASSERT_NE(pw, nullptr);
    ASSERT_EQ(chmod(ctld_.dir().path().c_str(), 0755), 0);
    ASSERT_EQ(chown((ctld_.dir().path() / "slurm.key").c_str(), pw->pw_uid, 0), 0);
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
    // Credentials signed in the second the controller started are refused
    // as stale; wait until one is not.
    for (int i = 0; i < 100 && ctld_.Run("squeue -h").exit_code != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotactld:\n" << ctld_.Log();
    ctld_.Kill(SIGTERM);
    if (made_user_) std::system(("userdel " + user_ + " 2>/dev/null").c_str());
  }

  // Runs a built command as the test user, in the test's directory.
  CommandResult AsUser(const std::string& command_line) const {
    return ctld_.Run("su -s /bin/sh " + user_ + " -c \"cd " + ctld_.dir().path().string() +
                     " && SLURM_CONF=" + ctld_.conf() + " " + testing::BinDir() + "/" +
                     command_line + "\"");
  }
  std::string StateOf(const std::string& job) const {
    return std::string(Trim(ctld_.Run("squeue -h -t all -o %T -j " + job).out));
  }

  ControllerProcess ctld_;
  std::string user_;
  bool made_user_ = false;
};

TEST_F(JobInputTest, OnlyPrivilegedUsersSubmitWithANegativeNice) {
  CommandResult refused = AsUser("sbatch --hold --nice=-2147483645 --wrap=true");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "sbatch: error: Batch job submission failed: Access/permission denied\n");
  EXPECT_EQ(ctld_.Run("squeue -h -o %i").out, "");
  EXPECT_EQ(AsUser("sbatch --parsable --hold --nice=10 --wrap=true").out, "1\n");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --nice=-10 --wrap=true").out, "2\n");
  CommandResult out_of_range = ctld_.Run("sbatch --hold --nice=-2147483646 --wrap=true");
  EXPECT_EQ(out_of_range.exit_code, 1) << out_of_range.out;
}

TEST_F(JobInputTest, DeadlineAlreadyPastIsRefused) {
  CommandResult refused = AsUser("sbatch --hold --deadline=2020-01-01T00:00:00 --wrap=true");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "sbatch: error: Batch job submission failed: Invalid time specified\n");
  EXPECT_EQ(AsUser("sbatch --parsable --hold --deadline=now+1hour --wrap=true").out, "1\n");
}

TEST_F(JobInputTest, ScriptsAndEnvironmentsOverMaxScriptSizeAreRefused) {
  const std::string big =
      ctld_.dir().Write("big.sh", "#!/bin/sh\n" + std::string(2100, '#') + "\ntrue\n");
  chmod(big.c_str(), 0644);
  CommandResult script = AsUser("sbatch --hold " + big);
  EXPECT_EQ(script.exit_code, 1);
  EXPECT_EQ(script.out, kTooLong);

  const auto start = std::chrono::steady_clock::now();
  CommandResult zero = AsUser("sbatch --hold /dev/zero");
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_EQ(zero.out, kTooLong);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  CommandResult env = ctld_.Run("su -s /bin/sh " + user_ + " -c \"SLURM_CONF=" + ctld_.conf() +
                                " BIG=" + std::string(2100, 'x') + " " + testing::BinDir() +
                                "/sbatch --hold --wrap=true\"");
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_EQ(env.out, kTooLong);

  // The controller itself, asked without sbatch's check.
  auto client = cli::ControllerClient::Create(ctld_.conf());
  ASSERT_TRUE(client.ok()) << client.status().message();
  wire::SubmitJobRequest request;
  request.mutable_spec()->set_hold(true);
  request.mutable_spec()->set_script("#!/bin/sh\n" + std::string(2100, '#'));
  wire::SubmitJobResponse response;
  Status s = (*client)->Call(api::kSubmitJob, request, &response);
  EXPECT_EQ(s.message(), "Pathname of a file, directory or other parameter too long");
  request.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  request.mutable_spec()->add_environment("BIG=" + std::string(2100, 'x'));
  s = (*client)->Call(api::kSubmitJob, request, &response);
  EXPECT_EQ(s.message(), "Pathname of a file, directory or other parameter too long");
  EXPECT_EQ(ctld_.Run("squeue -h -o %i").out, "");
}

TEST_F(JobInputTest, CancellingAnotherUsersJobsReportsEachRefusal) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "2\n");
  CommandResult refused = AsUser("scancel -u root");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out,
            "scancel: error: Kill job error on job id 1: Access/permission denied\n"
            "scancel: error: Kill job error on job id 2: Access/permission denied\n");
  EXPECT_EQ(StateOf("1"), "PENDING");
  EXPECT_EQ(StateOf("2"), "PENDING");
  // Their own, by user name, still goes quietly.
  ASSERT_EQ(AsUser("sbatch --parsable --hold --wrap=true").out, "3\n");
  CommandResult own = AsUser("scancel -u " + user_);
  EXPECT_EQ(own.exit_code, 0) << own.out;
  EXPECT_EQ(StateOf("3"), "CANCELLED");
}

TEST_F(JobInputTest, AJobCannotDependOnItself) {
  ASSERT_EQ(AsUser("sbatch --parsable --hold --wrap=true").out, "1\n");
  CommandResult self = AsUser("scontrol update JobId=1 Dependency=afterok:1");
  EXPECT_EQ(self.exit_code, 1);
  EXPECT_EQ(self.out, "Job dependency problem for job 1\n");
  EXPECT_EQ(ctld_.Run("squeue -h -o %E -j 1").out.find("afterok"), std::string::npos);
}

TEST_F(JobInputTest, SqueueRefusesAJobIdThatIsNotOne) {
  CommandResult bad = AsUser("squeue -j abc");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "squeue: error: Invalid job id: abc\n");
  // Well-formed ids reach the controller (which knows no such jobs).
  EXPECT_EQ(AsUser("squeue -h -j 1,2_3").out.find("Invalid job id: "), std::string::npos);
}

}  // namespace
}  // namespace rota
