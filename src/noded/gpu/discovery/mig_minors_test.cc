#include "noded/gpu/discovery/mig_minors.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

TEST(GpuMigMinorsTest, FindsTheComputeInstanceAccessFile) {
  auto minors = ParseMigMinors(
      "config 1\nmonitor 2\ngpu0/gi0/access 3\ngpu0/gi0/ci0/access 4\n"
      "gpu1/gi2/access 30\ngpu1/gi2/ci0/access 31\nnot a line\n\n");
  EXPECT_EQ(minors.size(), 6u);
  EXPECT_EQ(MigAccessFile(minors, 1, 2, 0), "/dev/nvidia-caps/nvidia-cap31");
  EXPECT_EQ(MigAccessFile(minors, 0, 0, 0), "/dev/nvidia-caps/nvidia-cap4");
  EXPECT_FALSE(MigAccessFile(minors, 1, 2, 1));
  EXPECT_TRUE(ParseMigMinors("").empty());
}

}  // namespace
}  // namespace rota::noded
