// sdiag against a real rotactld: job and RPC counts, and the reset.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <string>

#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

// The number after the first `label` in `text` (spaces skipped), or -1.
long long Figure(const std::string& text, const std::string& label) {
  size_t at = text.find(label);
  if (at == std::string::npos) return -1;
  at += label.size();
  while (at < text.size() && text[at] == ' ') ++at;
  size_t end = at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return end == at ? -1 : std::stoll(text.substr(at, end - at));
}

TEST(SdiagTest, CountsJobsAndRpcsThenResets) {
  ControllerProcess ctld;
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(ctld.Run("sbatch --hold --wrap=true").exit_code, 0);
  }
  ASSERT_EQ(ctld.Run("scancel 1").exit_code, 0);

  CommandResult r = ctld.Run("sdiag");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& out = r.out;
  EXPECT_NE(out.find("sdiag output at "), std::string::npos) << out;
  EXPECT_EQ(Figure(out, "Jobs submitted:"), 3) << out;
  EXPECT_EQ(Figure(out, "Jobs canceled:"), 1) << out;
  EXPECT_EQ(Figure(out, "Jobs started:"), 0) << out;
  EXPECT_EQ(Figure(out, "Jobs pending:"), 2) << out;
  EXPECT_GE(Figure(out, "Main schedule statistics (microseconds):\n\tLast cycle:"), 0) << out;
  EXPECT_GT(Figure(out, "\tTotal cycles:"), 0) << out;  // The main pass ran.
  EXPECT_NE(out.find("\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:3      ave_time:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\tREQUEST_KILL_JOB                        ( 5032) count:1      "),
            std::string::npos)
      << out;
  // sbatch x3 and scancel, all as root (this test's user).
  EXPECT_GE(Figure(out, "\troot            (       0) count:"), 4) << out;
  EXPECT_NE(out.find("Pending RPC statistics\n\tNo pending RPCs\n"), std::string::npos) << out;

  r = ctld.Run("sdiag --reset");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "Reset scheduling statistics\n");

  r = ctld.Run("sdiag -a");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(Figure(r.out, "Jobs submitted:"), 0) << r.out;
  EXPECT_EQ(Figure(r.out, "Jobs canceled:"), 0) << r.out;
  EXPECT_EQ(Figure(r.out, "Jobs pending:"), 2) << r.out;  // A state, not a counter.
  EXPECT_EQ(r.out.find("REQUEST_SUBMIT_BATCH_JOB"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("REQUEST_KILL_JOB"), std::string::npos) << r.out;
  // Only the reset itself was counted since.
  EXPECT_EQ(Figure(r.out, "\troot            (       0) count:"), 1) << r.out;

  // Another user may look but not reset (run as nobody, given the key of this
  // test's own cluster).
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv not installed";
  chmod(ctld.dir().path().c_str(), 0755);
  // The controller read the key at its start; the command reads it now, as
  // its owner (a key anyone may read is refused).
  ASSERT_EQ(chown((ctld.dir().path() / "slurm.key").c_str(), 65534, 65534), 0);
  chmod(ctld.conf().c_str(), 0644);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  r = ctld.Run(as_nobody + "sdiag --reset");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out, "slurm_reset_statistics: Access/permission denied\n");
  r = ctld.Run(as_nobody + "sdiag");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("(   65534) count:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rota
