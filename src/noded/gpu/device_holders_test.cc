#include "noded/gpu/device_holders.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

TEST(DeviceHoldersTest, FindsThisProcessWhileItHoldsTheFile) {
  rota::testing::TempDir dir;
  std::string path = dir.Write("gpu0", "");
  EXPECT_TRUE(ProcessesHolding(path).empty());
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<pid_t> holders = ProcessesHolding(path);
  EXPECT_NE(std::find(holders.begin(), holders.end(), getpid()), holders.end());
  close(fd);
  holders = ProcessesHolding(path);
  EXPECT_EQ(std::find(holders.begin(), holders.end(), getpid()), holders.end());
}

// One walk answers for several devices: each gets exactly its own holders.
TEST(DeviceHoldersTest, OneWalkAnswersForEachOfSeveralFiles) {
  rota::testing::TempDir dir;
  std::vector<std::string> paths = {dir.Write("gpu0", ""), dir.Write("gpu1", ""),
                                    dir.Write("gpu2", "")};
  int fd0 = open(paths[0].c_str(), O_RDONLY);
  int fd2 = open(paths[2].c_str(), O_RDONLY);
  int fd2_again = open(paths[2].c_str(), O_RDONLY);  // Twice, still listed once
  ASSERT_GE(fd0, 0);
  ASSERT_GE(fd2, 0);
  ASSERT_GE(fd2_again, 0);
  std::vector<std::vector<pid_t>> holders = ProcessesHoldingAny(paths);
  ASSERT_EQ(holders.size(), 3u);
  EXPECT_EQ(std::count(holders[0].begin(), holders[0].end(), getpid()), 1);
  EXPECT_EQ(std::count(holders[1].begin(), holders[1].end(), getpid()), 0);
  EXPECT_EQ(std::count(holders[2].begin(), holders[2].end(), getpid()), 1);
  close(fd0);
  close(fd2);
  close(fd2_again);
  EXPECT_TRUE(ProcessesHoldingAny({}).empty());
}

}  // namespace
}  // namespace rota::noded
