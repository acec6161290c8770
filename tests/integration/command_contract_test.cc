// The commands' own contract, checked with no controller, no rotadbd and
// often no slurm.conf: what they answer before they would contact anything
// (--version, -M/--clusters, value forms, option checks), as Slurm 22.05's
// commands answer it (docs/options.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "testing/temp_dir.h"

namespace rota {
namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

std::string BinDir() {
  const char* env = std::getenv("ROTA_BIN_DIR");
  return env != nullptr ? env : ROTA_BINARY_DIR "/bin";
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `program` with `args` under `env` ("NAME=value" words for env(1)), stdin
// from /dev/null.
RunResult RunCommand(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& env = {}) {
  std::string cmd = "env";
  for (const std::string& e : env) cmd += " " + ShellQuote(e);
  cmd += " " + ShellQuote(BinDir() + "/" + program);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  cmd += " </dev/null 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::vector<std::string> kNoConfig = {"SLURM_CONF=/nonexistent/slurm.conf"};

const char* const kCommands[] = {"sbatch",   "srun",    "salloc",  "squeue",   "sinfo",
                                 "scontrol", "scancel", "sacct",   "sacctmgr", "sprio",
                                 "sshare",   "sdiag",   "sreport", "rota"};

TEST(VersionTest, EveryCommandPrintsSlurmsVersionWithoutConfiguration) {
  for (const char* command : kCommands) {
    for (const char* flag : {"--version", "-V"}) {
      RunResult r = RunCommand(command, {flag}, kNoConfig);
      EXPECT_EQ(r.exit_code, 0) << command << " " << flag << "\n" << r.out;
      EXPECT_EQ(r.out, "slurm 22.05.8\n") << command << " " << flag;
    }
  }
}

TEST(VersionTest, VersionWordsOfTheInteractiveCommands) {
  for (const char* command : {"scontrol", "sacctmgr", "sreport", "rota"}) {
    RunResult r = RunCommand(command, {"version"}, kNoConfig);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out;
    EXPECT_EQ(r.out, "slurm 22.05.8\n") << command;
  }
}

TEST(VersionTest, SbatchAnswersBeforeLookingForItsScript) {
  RunResult r = RunCommand("sbatch", {"--version", "/nonexistent/script.sh"}, kNoConfig);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "slurm 22.05.8\n");
}

}  // namespace
}  // namespace rota
