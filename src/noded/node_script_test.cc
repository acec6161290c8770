#include "noded/node_script.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

std::string Script(const rota::testing::TempDir& dir, const std::string& body) {
  std::string path = dir.Write("check.sh", "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

TEST(NodeScriptTest, ZeroExitIsHealthy) {
  rota::testing::TempDir dir;
  EXPECT_TRUE(RunNodeScript(Script(dir, "echo all good\nexit 0\n"), {}, std::chrono::seconds(5),
                            "HealthCheckProgram")
                  .ok);
}

TEST(NodeScriptTest, FailureReasonIsTheFirstLineItPrinted) {
  rota::testing::TempDir dir;
  ScriptOutcome o =
      RunNodeScript(Script(dir, "echo\necho '  /scratch is full  '\necho more\nexit 1\n"), {},
                    std::chrono::seconds(5), "HealthCheckProgram");
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.reason, "/scratch is full");
  o = RunNodeScript(Script(dir, "exit 3\n"), {}, std::chrono::seconds(5), "HealthCheckProgram");
  EXPECT_EQ(o.reason, "HealthCheckProgram exited with status 3");
  o = RunNodeScript("/nonexistent/nhc", {}, std::chrono::seconds(5), "HealthCheckProgram");
  EXPECT_EQ(o.reason, "HealthCheckProgram could not be run");
}

TEST(NodeScriptTest, AHangingCheckIsKilled) {
  rota::testing::TempDir dir;
  auto start = std::chrono::steady_clock::now();
  ScriptOutcome o = RunNodeScript(Script(dir, "sleep 30 &\nsleep 30\n"), {},
                                  std::chrono::seconds(1), "HealthCheckProgram");
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.reason, "HealthCheckProgram timed out");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(NodeScriptTest, EnvironmentAndPatterns) {
  rota::testing::TempDir dir;
  std::string path = Script(dir, "[ \"$SLURM_JOB_ID\" = 42 ] || { echo \"no job id\"; exit 1; }\n");
  EXPECT_TRUE(RunNodeScript(path, {"SLURM_JOB_ID=42"}, std::chrono::seconds(5), "Prolog").ok);
  ScriptOutcome o = RunNodeScript(path, {}, std::chrono::seconds(5), "Prolog");
  EXPECT_EQ(o.reason, "no job id");
  dir.Write("prolog.d/20-b", "");
  dir.Write("prolog.d/10-a", "");
  std::vector<std::string> found = ExpandScriptPattern((dir.path() / "prolog.d" / "*").string());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].find("10-a"), std::string::npos);
  EXPECT_EQ(ExpandScriptPattern("/etc/plain"), std::vector<std::string>{"/etc/plain"});
  EXPECT_TRUE(ExpandScriptPattern((dir.path() / "none.d" / "*").string()).empty());
}

}  // namespace
}  // namespace rota::noded
