#include "auth/slurm_key_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "testing/temp_dir.h"

namespace rota::auth {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SlurmKeyFileTest : public ::testing::Test {
 protected:
  // Writes `bytes` to `name` with exactly `mode` (chmod, not subject to umask).
  std::string WriteKey(const std::string& name, const std::string& bytes, mode_t mode) {
    std::string path = dir_.Write(name, bytes);
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }

  rota::testing::TempDir dir_;
  const std::string key_bytes_ = std::string(32, 'k');
};

TEST_F(SlurmKeyFileTest, Accepts0600And0400) {
  for (mode_t mode : {0600, 0400}) {
    std::string path = WriteKey("slurm.key", key_bytes_, mode);
    auto key = LoadSlurmKey(path);
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    EXPECT_EQ((*key)->bytes().size(), 32u);
  }
}

TEST_F(SlurmKeyFileTest, RefusesGroupOrWorldAccessNamingPathAndMode) {
  for (mode_t mode : {0644, 0640, 0604, 0660, 0606, 0620, 0602, 0700, 0200}) {
    std::string path = WriteKey("slurm.key", key_bytes_, mode);
    auto key = LoadSlurmKey(path);
    ASSERT_FALSE(key.ok()) << std::oct << mode;
    EXPECT_EQ(key.status().code(), StatusCode::kPermissionDenied);
    char mode_text[8];
    snprintf(mode_text, sizeof(mode_text), "%04o", static_cast<unsigned>(mode));
    EXPECT_THAT(key.status().message(), AllOf(HasSubstr(path), HasSubstr(mode_text)));
  }
}

TEST_F(SlurmKeyFileTest, RefusesShortKey) {
  std::string path = WriteKey("slurm.key", std::string(31, 'k'), 0600);
  auto key = LoadSlurmKey(path);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(key.status().message(), AllOf(HasSubstr(path), HasSubstr("31 bytes")));
}

TEST_F(SlurmKeyFileTest, RefusesEmptyKey) {
  std::string path = WriteKey("slurm.key", "", 0400);
  EXPECT_FALSE(LoadSlurmKey(path).ok());
}

TEST_F(SlurmKeyFileTest, MissingFileIsIoError) {
  auto key = LoadSlurmKey((dir_.path() / "absent.key").string());
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), StatusCode::kIoError);
  EXPECT_THAT(key.status().message(), HasSubstr("absent.key"));
}

TEST_F(SlurmKeyFileTest, RefusesDirectory) {
  std::filesystem::create_directory(dir_.path() / "keydir");
  chmod((dir_.path() / "keydir").c_str(), 0600);
  EXPECT_FALSE(LoadSlurmKey((dir_.path() / "keydir").string()).ok());
}

}  // namespace
}  // namespace rota::auth
