#include "common/resource_limits.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace rota {
namespace {

using Names = std::vector<std::string>;

TEST(ResourceLimitsTest, EveryLimitByDefaultAndWithAll) {
  const Names all{"AS",      "CORE",   "CPU",   "DATA", "FSIZE",
                  "MEMLOCK", "NOFILE", "NPROC", "RSS",  "STACK"};
  EXPECT_EQ(PropagatedLimitNames({}, {}), all);
  EXPECT_EQ(PropagatedLimitNames({"ALL"}, {}), all);
}

TEST(ResourceLimitsTest, NoneAListOrAllExceptSome) {
  EXPECT_EQ(PropagatedLimitNames({"NONE"}, {}), Names{});
  // Listed ones, in Slurm's order whatever the key's order, any case.
  EXPECT_EQ(PropagatedLimitNames({"nofile", "CORE"}, {}), (Names{"CORE", "NOFILE"}));
  // RDMA sites keep the node's MEMLOCK: everything else is propagated.
  EXPECT_EQ(PropagatedLimitNames({}, {"MEMLOCK", "stack"}),
            (Names{"AS", "CORE", "CPU", "DATA", "FSIZE", "NOFILE", "NPROC", "RSS"}));
}

TEST(ResourceLimitsTest, NamesMapToTheirResources) {
  EXPECT_EQ(ResourceOfLimit("nofile"), RLIMIT_NOFILE);
  EXPECT_EQ(ResourceOfLimit("MEMLOCK"), RLIMIT_MEMLOCK);
  EXPECT_EQ(ResourceOfLimit("ALL"), std::nullopt);
  EXPECT_EQ(ResourceLimitNames().size(), 10u);
}

TEST(ResourceLimitsTest, CapturesThisProcesssSoftLimits) {
  rlimit core{};
  ASSERT_EQ(getrlimit(RLIMIT_CORE, &core), 0);
  rlimit lowered = core;
  lowered.rlim_cur = 4096;
  if (lowered.rlim_max != RLIM_INFINITY && lowered.rlim_max < 4096) lowered.rlim_cur = 0;
  ASSERT_EQ(setrlimit(RLIMIT_CORE, &lowered), 0);
  std::vector<CapturedLimit> got = CaptureSoftLimits({"CORE", "BOGUS"});
  setrlimit(RLIMIT_CORE, &core);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].name, "CORE");
  EXPECT_EQ(got[0].soft, lowered.rlim_cur);
}

}  // namespace
}  // namespace rota
