#include "noded/container/container_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rota::noded {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const ContainerRuntime kWithCli{"crun", "/usr/bin/nvidia-container-cli",
                                "/opt/rota-container-hook"};

TEST(GpuDriverHookTest, NoCliOrNoGpuMeansNoHook) {
  EXPECT_FALSE(
      GpuDriverHook(ContainerRuntime{.program = "crun"}, {"0"}, "", true, "/r").has_value());
  EXPECT_FALSE(GpuDriverHook(kWithCli, {}, "", true, "/r").has_value());
}

// Root runs the CLI in its own mode (it may load the driver's modules); the
// default capabilities are compute and utility, "all" asks for each.
TEST(GpuDriverHookTest, RootGetsTheModulesAndAllMeansEveryCapability) {
  std::optional<BundleHook> hook = GpuDriverHook(kWithCli, {"GPU-1", "GPU-2"}, "", false, "/r");
  ASSERT_TRUE(hook.has_value());
  EXPECT_EQ(hook->path, "/opt/rota-container-hook");
  EXPECT_THAT(hook->args,
              ElementsAre("/opt/rota-container-hook", "/usr/bin/nvidia-container-cli",
                          "--load-kmods", "configure", "--no-cgroups", "--ldconfig=@/sbin/ldconfig",
                          "--device=GPU-1,GPU-2", "--compute", "--utility", "--pid=@PID@", "/r"));
  hook = GpuDriverHook(kWithCli, {"0"}, " all ", false, "/r");
  ASSERT_TRUE(hook.has_value());
  EXPECT_THAT(hook->args, ::testing::IsSupersetOf({"--compute", "--compat32", "--display",
                                                   "--graphics", "--utility", "--video"}));
  // An unknown word is not passed on to the CLI.
  hook = GpuDriverHook(kWithCli, {"0"}, "compute,warp", true, "/r");
  ASSERT_TRUE(hook.has_value());
  EXPECT_THAT(hook->args, ::testing::Contains("--compute"));
  EXPECT_THAT(hook->args, ::testing::Not(::testing::Contains("--warp")));
}

TEST(ContainerHookTest, ThePidComesFromTheStateAndTakesThePlaceholder) {
  Result<int> pid = ContainerPidOfState(
      R"({"ociVersion":"1.0.2","id":"rota-1.0.0","status":"created","pid":4321,"bundle":"/b"})");
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  EXPECT_EQ(*pid, 4321);
  EXPECT_THAT(WithContainerPid({"cli", "configure", "--pid=@PID@", "/r"}, *pid),
              ElementsAre("cli", "configure", "--pid=4321", "/r"));
  EXPECT_THAT(ContainerPidOfState("not json").status().message(), HasSubstr("not a JSON object"));
  EXPECT_THAT(ContainerPidOfState(R"({"status":"creating"})").status().message(),
              HasSubstr("no process id"));
  EXPECT_FALSE(ContainerPidOfState(R"({"pid":0})").ok());
}

}  // namespace
}  // namespace rota::noded
