#include "noded/device_holders.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace rota::noded
