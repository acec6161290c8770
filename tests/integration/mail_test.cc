// --mail-type and MailProg with a real rotactld (no node daemons: the test
// registers the nodes and reports the jobs' ends): the controller runs
// MailProg as `MailProg -s SUBJECT RECIPIENT` with Slurm's subjects and the
// job's variables when a job begins and ends, to --mail-user or else the
// submitting user, and scontrol shows MailUser= and MailType=.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/strings.h"
#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::ControllerProcess;

std::string Base() { return "/tmp/rota-mailtest-" + std::to_string(getpid()); }

class MailTest : public ::testing::Test {
 protected:
  MailTest() : ctld_(Settings()) {}
  static std::string Settings() {
    // One line per mail: its arguments and two of its variables.
    const std::string prog = Base() + ".mailprog";
    std::ofstream(prog) << "#!/bin/sh\nprintf '%s|%s|%s|%s|%s\\n' \"$1\" \"$2\" \"$3\" "
                           "\"$SLURM_JOB_MAIL_TYPE\" \"$SLURM_JOB_STATE\" >> "
                        << Base() << ".log\n";
    chmod(prog.c_str(), 0755);
    // A partition whose idle GPUs are mailed about (docs/gpu-efficiency.md).
    return "MailProg=" + prog + "\nPartitionName=watched Nodes=ALL GpuIdlePolicy=action=notify\n";
  }
  void SetUp() override {
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
    testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << ctld_.Log();
    ctld_.Kill(SIGTERM);
    std::filesystem::remove(Base() + ".mailprog");
    std::filesystem::remove(Base() + ".log");
  }
  // The mails sent so far, once there are `count` of them (10 s at most).
  std::vector<std::string> Mails(size_t count) {
    std::vector<std::string> lines;
    for (int i = 0; i < 200; ++i) {
      std::ifstream in(Base() + ".log");
      lines.clear();
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      if (lines.size() >= count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return lines;
  }
  // `subject` with its times ("00:00:01") replaced by T, which vary.
  static std::string WithoutTimes(std::string text) {
    for (size_t at = 0; (at = text.find(" time ", at)) != std::string::npos;) {
      at += 6;
      size_t end = text.find_first_of(",|", at);
      text.replace(at, end - at, "T");
    }
    return text;
  }

  ControllerProcess ctld_;
};

TEST_F(MailTest, IdleGpusUnderGpuIdlePolicyNotifyMailTheUserWhateverMailType) {
  const std::string job =
      std::string(Trim(ctld_.Run("sbatch --parsable -J idle -p watched --gpus=1 --wrap=true").out));
  ASSERT_TRUE(testing::WaitForJobState(ctld_, job, "RUNNING"));
  const std::string node = std::string(Trim(ctld_.Run("squeue -h -o %N -j " + job).out));
  EXPECT_EQ(Trim(ctld_.Run("squeue -h -O GpuIdle -j " + job).out), "N/A");
  // What the job's node daemon says once its GPUs have been idle long enough.
  auto client = cli::ControllerClient::Create(ctld_.conf());
  ASSERT_TRUE(client.ok());
  wire::JobGpuIdleRequest idle;
  idle.set_job_id(static_cast<uint32_t>(std::stoul(job)));
  idle.set_node(node);
  idle.set_run(0);
  idle.set_idle(true);
  idle.set_since(static_cast<int64_t>(std::time(nullptr)) - 1800);
  idle.set_mean_util_pct(1.5);
  wire::Empty none;
  ASSERT_TRUE((*client)->Call(api::kJobGpuIdle, idle, &none).ok());
  std::vector<std::string> mails = Mails(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_TRUE(mails[0].starts_with("-s|Slurm Job_id=" + job + " Name=idle GPUs idle since "))
      << mails[0];
  EXPECT_TRUE(mails[0].ends_with(" (mean 1.5%, below 5%)|root|GPU_IDLE|RUNNING")) << mails[0];
  EXPECT_NE(Trim(ctld_.Run("squeue -h -O GpuIdle -j " + job).out), "N/A");
  EXPECT_NE(ctld_.Run("scontrol show job " + job).out.find("GpuIdleUtil=1.5%"), std::string::npos);
  // Told again: no second mail.
  ASSERT_TRUE((*client)->Call(api::kJobGpuIdle, idle, &none).ok());
  testing::ReportJobExit(ctld_, static_cast<uint32_t>(std::stoul(job)), 0);
  ASSERT_TRUE(testing::WaitForJobState(ctld_, job, "COMPLETED"));
  EXPECT_EQ(Mails(2).size(), 1u);
}

TEST_F(MailTest, BeginAndEndMailTheSubmitterOrMailUser) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J mailme --mail-type=BEGIN,END --wrap=true").out, "1\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "1", "RUNNING"));
  EXPECT_NE(ctld_.Run("scontrol show job 1").out.find("MailUser=root MailType=BEGIN,END"),
            std::string::npos)
      << ctld_.Run("scontrol show job 1").out;
  std::vector<std::string> mails = Mails(1);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(WithoutTimes(mails[0]),
            "-s|Slurm Job_id=1 Name=mailme Began, Queued time T|root|Began|RUNNING");

  testing::ReportJobExit(ctld_, 1, 3 << 8);
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "1", "FAILED"));
  mails = Mails(2);
  ASSERT_EQ(mails.size(), 2u);
  // END alone asked for: a failed job mails END, with its state and exit code.
  EXPECT_EQ(
      WithoutTimes(mails[1]),
      "-s|Slurm Job_id=1 Name=mailme Ended, Run time T, FAILED, ExitCode 3|root|Ended|FAILED");

  // FAIL only, to --mail-user: nothing when the job completes, a mail when it fails.
  ASSERT_EQ(
      ctld_.Run("sbatch --parsable -J ok --mail-type=FAIL --mail-user=ops@example.org --wrap=true")
          .out,
      "2\n");
  ASSERT_EQ(
      ctld_.Run("sbatch --parsable -J bad --mail-type=FAIL --mail-user=ops@example.org --wrap=true")
          .out,
      "3\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "3", "RUNNING"));
  EXPECT_NE(ctld_.Run("scontrol show job 2").out.find("MailUser=ops@example.org MailType=FAIL"),
            std::string::npos);
  testing::ReportJobExit(ctld_, 2, 0);
  testing::ReportJobExit(ctld_, 3, 1 << 8);
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "3", "FAILED"));
  mails = Mails(3);
  ASSERT_EQ(mails.size(), 3u);
  EXPECT_EQ(WithoutTimes(mails[2]),
            "-s|Slurm Job_id=3 Name=bad Failed, Run time T, FAILED, ExitCode 1|ops@example.org|"
            "Failed|FAILED");
  // No mail type, no MailUser line; a bad one is refused.
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "4\n");
  EXPECT_EQ(ctld_.Run("scontrol show job 4").out.find("MailUser="), std::string::npos);
  testing::CommandResult bad = ctld_.Run("sbatch --mail-type=SOMETIMES --wrap=true");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("--mail-type=SOMETIMES invalid"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace rota
