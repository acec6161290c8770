#include "common/cpu_bind_spec.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

using Lists = std::vector<std::vector<uint32_t>>;

TEST(CpuBindSpecTest, Kinds) {
  EXPECT_EQ(ParseCpuBindSpec("")->kind, CpuBindSpec::kDefault);
  EXPECT_EQ(ParseCpuBindSpec("none")->kind, CpuBindSpec::kNone);
  EXPECT_EQ(ParseCpuBindSpec("no")->kind, CpuBindSpec::kNone);
  EXPECT_EQ(ParseCpuBindSpec("cores")->kind, CpuBindSpec::kCores);
  EXPECT_EQ(ParseCpuBindSpec("threads")->kind, CpuBindSpec::kThreads);
  EXPECT_EQ(ParseCpuBindSpec("sockets")->kind, CpuBindSpec::kSockets);
  EXPECT_EQ(ParseCpuBindSpec("rank")->kind, CpuBindSpec::kRank);
  Result<CpuBindSpec> v = ParseCpuBindSpec("verbose,cores");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->verbose);
  EXPECT_EQ(v->kind, CpuBindSpec::kCores);
  EXPECT_FALSE(ParseCpuBindSpec("quiet,threads")->verbose);
  EXPECT_TRUE(ParseCpuBindSpec("v")->verbose);
}

TEST(CpuBindSpecTest, Lists) {
  Result<CpuBindSpec> map = ParseCpuBindSpec("verbose,map_cpu:3,0x1,2*2");
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->kind, CpuBindSpec::kMapCpu);
  EXPECT_TRUE(map->verbose);
  EXPECT_EQ(map->lists, Lists({{3}, {1}, {2}, {2}}));
  Result<CpuBindSpec> mask = ParseCpuBindSpec("mask_cpu:0x3,c,0x10");
  ASSERT_TRUE(mask.ok()) << mask.status().message();
  EXPECT_EQ(mask->kind, CpuBindSpec::kMaskCpu);
  EXPECT_EQ(mask->lists, Lists({{0, 1}, {2, 3}, {4}}));
}

TEST(CpuBindSpecTest, Refusals) {
  for (const char* bad : {"bogus", "cores,threads", "map_cpu:", "map_cpu:x", "mask_cpu:0x0",
                          "mask_cpu:0xg", "map_cpu:1*0"}) {
    Result<CpuBindSpec> r = ParseCpuBindSpec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), std::string("Invalid --cpu-bind argument: ") + bad);
  }
}

TEST(CpuBindSpecTest, MaskHex) {
  EXPECT_EQ(CpuMaskHex({}), "0x0");
  EXPECT_EQ(CpuMaskHex({0}), "0x1");
  EXPECT_EQ(CpuMaskHex({0, 1}), "0x3");
  EXPECT_EQ(CpuMaskHex({4}), "0x10");
  EXPECT_EQ(CpuMaskHex({1, 3, 9}), "0x20a");
}

}  // namespace
}  // namespace rota
