#include "common/mem_bind_spec.h"

#include <gtest/gtest.h>

namespace rota {
namespace {

using Lists = std::vector<std::vector<uint32_t>>;

TEST(MemBindSpecTest, KindsAndFlags) {
  Result<MemBindSpec> s = ParseMemBindSpec("");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kNone);
  s = ParseMemBindSpec("verbose,local");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kLocal);
  EXPECT_TRUE(s->verbose);
  s = ParseMemBindSpec("prefer,rank,nosort");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kRank);
  EXPECT_TRUE(s->prefer);
  s = ParseMemBindSpec("NONE");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kNone);
}

TEST(MemBindSpecTest, ListsRunPastCommas) {
  Result<MemBindSpec> s = ParseMemBindSpec("map_mem:1,0,0x2*2");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kMapMem);
  EXPECT_EQ(s->lists, (Lists{{1}, {0}, {2}, {2}}));
  s = ParseMemBindSpec("quiet,mask_mem:0x3,4,sort");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kMaskMem);
  EXPECT_EQ(s->lists, (Lists{{0, 1}, {2}}));
  s = ParseMemBindSpec("map_ldom:0");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, MemBindSpec::kMapMem);
}

TEST(MemBindSpecTest, Refusals) {
  for (const char* bad : {"sideways", "local,rank", "map_mem:", "map_mem:x", "mask_mem:0x0",
                          "map_cpu:1", "local,bogus"}) {
    Result<MemBindSpec> s = ParseMemBindSpec(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().message(), std::string("Invalid --mem-bind argument: ") + bad);
  }
}

}  // namespace
}  // namespace rota
