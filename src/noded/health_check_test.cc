#include "noded/health_check.h"

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

TEST(HealthCheckTest, ZeroExitIsHealthy) {
  rota::testing::TempDir dir;
  EXPECT_TRUE(
      RunHealthCheck(Script(dir, "echo all good\nexit 0\n"), std::chrono::seconds(5)).healthy);
}

TEST(HealthCheckTest, FailureReasonIsTheFirstLineItPrinted) {
  rota::testing::TempDir dir;
  HealthCheckOutcome o =
      RunHealthCheck(Script(dir, "echo\necho '  /scratch is full  '\necho more\nexit 1\n"),
                     std::chrono::seconds(5));
  EXPECT_FALSE(o.healthy);
  EXPECT_EQ(o.reason, "/scratch is full");
  o = RunHealthCheck(Script(dir, "exit 3\n"), std::chrono::seconds(5));
  EXPECT_EQ(o.reason, "HealthCheckProgram exited with status 3");
  o = RunHealthCheck("/nonexistent/nhc", std::chrono::seconds(5));
  EXPECT_EQ(o.reason, "HealthCheckProgram could not be run");
}

TEST(HealthCheckTest, AHangingCheckIsKilled) {
  rota::testing::TempDir dir;
  auto start = std::chrono::steady_clock::now();
  HealthCheckOutcome o =
      RunHealthCheck(Script(dir, "sleep 30 &\nsleep 30\n"), std::chrono::seconds(1));
  EXPECT_FALSE(o.healthy);
  EXPECT_EQ(o.reason, "HealthCheckProgram timed out");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace rota::noded
