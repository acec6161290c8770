// A full state disk: rotactld with its StateSaveLocation on a small tmpfs that
// the test fills. The controller keeps serving reads, refuses changes with the
// reason (also in sdiag and scontrol ping), loses nothing it acknowledged, and
// takes changes again once space returns.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

class StateDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "mounting a tmpfs needs root";
    state_ = (ctld_.dir().path() / "state").string();
    std::filesystem::create_directories(state_);
    // Room for the state, and for the reserve (8 MiB) the controller keeps.
    ASSERT_EQ(mount("tmpfs", state_.c_str(), "tmpfs", 0, "size=12m,mode=0700"), 0)
        << strerror(errno);
    mounted_ = true;
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotactld log:\n" << ctld_.Log();
    ctld_.Kill(SIGKILL);
    if (mounted_) umount2(state_.c_str(), MNT_DETACH);
  }

  // Writes a file into the state directory until the disk is full.
  void FillTheDisk() {
    std::ofstream filler(state_ + "/filler", std::ios::binary);
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 64 && filler.write(chunk.data(), chunk.size()); ++i) filler.flush();
  }
  // Submits until the controller takes it (at most ~10 s); the command's last result.
  CommandResult SubmitWhenAccepted() {
    CommandResult r;
    for (int i = 0; i < 100; ++i) {
      r = ctld_.Run("sbatch --parsable --hold --wrap=true");
      if (r.exit_code == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return r;
  }

  ControllerProcess ctld_;
  std::string state_;
  bool mounted_ = false;
};

TEST_F(StateDiskTest, FullDiskRefusesChangesServesReadsAndResumes) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
  FillTheDisk();

  CommandResult refused = ctld_.Run("sbatch --hold --wrap=true");
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.out.find("sbatch: error: "), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("cannot save its state"), std::string::npos) << refused.out;
  CommandResult cancel = ctld_.Run("scancel 1");
  EXPECT_NE(cancel.exit_code, 0) << cancel.out;
  // Reads go on, and show the condition.
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%T'").out, "1|PENDING\n");
  EXPECT_NE(ctld_.Run("sdiag").out.find("CHANGES REFUSED: the controller cannot save its state"),
            std::string::npos);
  CommandResult ping = ctld_.Run("scontrol ping");
  EXPECT_EQ(ping.exit_code, 0);
  EXPECT_NE(ping.out.find("Slurmctld(primary) at localhost is UP\n"), std::string::npos)
      << ping.out;
  EXPECT_NE(ping.out.find("refuses changes"), std::string::npos) << ping.out;
  // Said once in the log, not once per refusal.
  const std::string log = ctld_.Log();
  size_t said = 0;
  for (size_t at = log.find("changes are refused until"); at != std::string::npos;
       at = log.find("changes are refused until", at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 1u) << log;

  std::filesystem::remove(state_ + "/filler");
  CommandResult accepted = SubmitWhenAccepted();
  EXPECT_EQ(accepted.exit_code, 0) << accepted.out;
  EXPECT_EQ(accepted.out, "2\n");
  EXPECT_EQ(ctld_.Run("scontrol ping").out, "Slurmctld(primary) at localhost is UP\n");

  // What was acknowledged survives a restart; nothing refused appears.
  ctld_.Kill(SIGKILL);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("squeue -h -t all -S i -o '%i|%T'").out, "1|PENDING\n2|PENDING\n");
}

}  // namespace
}  // namespace rota
