#include "noded/cpu_list.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(CpuListTest, ParsesRangesAndSingles) {
  EXPECT_EQ(ParseCpuList("0-2,5\n"), (std::vector<uint32_t>{0, 1, 2, 5}));
  EXPECT_EQ(ParseCpuList("3,1"), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(ParseCpuList(""), std::vector<uint32_t>{});
  EXPECT_FALSE(ParseCpuList("2-1"));
  EXPECT_FALSE(ParseCpuList("a"));
}

TEST(CpuListTest, FormatsFoldedRanges) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(FormatCpuList({4}), "4");
  EXPECT_EQ(FormatCpuList({}), "");
}

}  // namespace
}  // namespace rota::noded
