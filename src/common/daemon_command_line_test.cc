#include "common/daemon_command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rota {
namespace {

// Runs the parser over `args` (argv[0] added) with one own option, -N NAME.
struct Parsed {
  std::optional<int> exit;
  DaemonCommandLine line;
  std::string node;
};
Parsed Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "rotad");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Parsed p;
  p.line.slurm_conf_path = "/etc/slurm/slurm.conf";
  DaemonOptions own;
  own.short_options = "N:";
  own.apply = [&](int option, const char* argument) {
    if (option == 'N') p.node = argument;
  };
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  p.exit = ParseDaemonCommandLine(
      static_cast<int>(args.size()), argv.data(), "rotad",
      [](FILE* to) { std::fputs("usage\n", to); }, own, p.line);
  ::testing::internal::GetCapturedStdout();
  ::testing::internal::GetCapturedStderr();
  return p;
}

TEST(DaemonCommandLineTest, SharedAndOwnOptions) {
  Parsed p = Parse({"-D", "-f", "/x/slurm.conf", "-N", "n1", "-v"});
  EXPECT_FALSE(p.exit.has_value());
  EXPECT_EQ(p.line.slurm_conf_path, "/x/slurm.conf");
  EXPECT_EQ(p.line.log_level, "debug");
  EXPECT_EQ(p.node, "n1");

  p = Parse({"--config=/y/slurm.conf"});
  EXPECT_FALSE(p.exit.has_value());
  EXPECT_EQ(p.line.slurm_conf_path, "/y/slurm.conf");
  EXPECT_EQ(p.line.log_level, "info");
}

TEST(DaemonCommandLineTest, HelpAndMistakesEndTheProgram) {
  EXPECT_EQ(Parse({"--help"}).exit, 0);
  EXPECT_EQ(Parse({"-x"}).exit, 1);
  EXPECT_EQ(Parse({"-f"}).exit, 1);  // -f wants a file
  EXPECT_EQ(Parse({"stray"}).exit, 1);
  Parsed p = Parse({"-N", "n2"});  // Parsing again starts from the first argument
  EXPECT_FALSE(p.exit.has_value());
  EXPECT_EQ(p.node, "n2");
}

}  // namespace
}  // namespace rota
