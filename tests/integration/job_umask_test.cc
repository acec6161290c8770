// The submitter's umask on the two-node cluster: a job submitted with umask
// 077 writes its output, the files its script makes and those its step's
// tasks make with mode 0600, so that no other user reads them; SLURM_UMASK
// set by the user wins over the umask.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

class JobUmaskTest : public testing::TwoNodeClusterTest {
 protected:
  // Submits `command` with the shell's umask `mask`; returns the job id.
  std::string Submit(const std::string& mask, const std::string& command,
                     const std::string& env = "") {
    CommandResult r = cluster_->Run("sh -c \"umask " + mask + "; " + env +
                                    " sbatch --parsable --chdir=" + cluster_->work_dir() +
                                    " --wrap='" + command + "'\"");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }
  std::string Path(const std::string& name) const { return cluster_->work_dir() + "/" + name; }
};

TEST_F(JobUmaskTest, OutputAndEveryFileTheJobMakesGetTheSubmittersUmask) {
  const std::string srun = testing::BinDir() + "/srun";
  const std::string job =
      Submit("077", "touch made-by-script; echo \\$SLURM_UMASK; SLURM_CONF=" + cluster_->conf() +
                        " " + srun + " -n1 touch made-by-step");
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Output(job);
  EXPECT_EQ(Output(job), "0077\n");
  EXPECT_EQ(ModeOf(Path("slurm-" + job + ".out")), 0600u);
  EXPECT_EQ(ModeOf(Path("made-by-script")), 0600u);
  EXPECT_EQ(ModeOf(Path("made-by-step")), 0600u);
}

TEST_F(JobUmaskTest, SlurmUmaskSetByTheUserWins) {
  const std::string job = Submit("077", "touch user-mask", "SLURM_UMASK=0027");
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Output(job);
  EXPECT_EQ(ModeOf(Path("slurm-" + job + ".out")), 0640u);
  EXPECT_EQ(ModeOf(Path("user-mask")), 0640u);
}

}  // namespace
}  // namespace rota
