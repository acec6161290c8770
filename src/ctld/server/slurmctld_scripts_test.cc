#include "ctld/server/slurmctld_scripts.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "testing/temp_dir.h"

namespace rota::ctld {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SlurmctldScriptsTest, RunsEachScriptWithItsJobsVariables) {
  rota::testing::TempDir dir;
  const std::string script =
      dir.Write("epilog", "#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_SCRIPT_CONTEXT\" > " +
                              (dir.path() / "ran.").string() + "$SLURM_JOB_ID\n");
  chmod(script.c_str(), 0755);
  {
    SlurmctldScripts scripts(nullptr);
    Effects effects;
    effects.scripts.push_back(
        {4, script, {"SLURM_JOB_ID=4", "SLURM_SCRIPT_CONTEXT=epilog_slurmctld"}});
    effects.scripts.push_back(
        {5, script, {"SLURM_JOB_ID=5", "SLURM_SCRIPT_CONTEXT=epilog_slurmctld"}});
    scripts.Carry(effects);
    scripts.Carry(Effects{});  // Nothing to run: nothing happens
  }                            // Waits for both.
  EXPECT_EQ(ReadFile((dir.path() / "ran.4").string()), "4 epilog_slurmctld\n");
  EXPECT_EQ(ReadFile((dir.path() / "ran.5").string()), "5 epilog_slurmctld\n");
}

}  // namespace
}  // namespace rota::ctld
