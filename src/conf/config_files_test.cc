#include "conf/config_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "conf/config_loader.h"
#include "testing/config_files.h"
#include "testing/temp_dir.h"

namespace rota::conf {
namespace {

namespace fs = std::filesystem;
using rota::testing::kMinimalHead;
using rota::testing::TempDir;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const ConfigFileCopy* Named(const std::vector<ConfigFileCopy>& files, const std::string& name) {
  for (const ConfigFileCopy& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(ConfigFilesTest, SlurmConfItsIncludesAndTheCompanionsBesideIt) {
  TempDir etc;
  TempDir elsewhere;
  Write(etc.path() / "slurm.conf",
        std::string(kMinimalHead) + "Include nodes.d/*.conf\n  include \"" +
            (elsewhere.path() / "parts.conf").string() + "\"  # outside\nMaxJobCount=7\n");
  Write(etc.path() / "nodes.d/a.conf", "NodeName=n1\n");
  Write(etc.path() / "nodes.d/b.conf", "NodeName=n2\nInclude ../more.conf\n");
  Write(etc.path() / "more.conf", "NodeName=n3\n");
  Write(elsewhere.path() / "parts.conf", "PartitionName=p Nodes=n[1-3]\n");
  Write(etc.path() / "cgroup.conf", "ConstrainCores=yes\n");
  Write(etc.path() / "slurmdbd.conf", "StoragePass=secret\n");
  Write(etc.path() / "slurm.key", "key");

  auto files = CollectConfigFiles((etc.path() / "slurm.conf").string());
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::vector<std::string> names;
  for (const ConfigFileCopy& f : *files) names.push_back(f.name);
  const std::string outside = "included" + (elsewhere.path() / "parts.conf").string();
  EXPECT_EQ(names, (std::vector<std::string>{"slurm.conf", "nodes.d/a.conf", "nodes.d/b.conf",
                                             "more.conf", outside, "cgroup.conf"}));
  // Include lines name the files where the set puts them, relative to the
  // including file as the reader resolves them.
  EXPECT_EQ(Named(*files, "slurm.conf")->content, std::string(kMinimalHead) +
                                                      "Include nodes.d/*.conf\nInclude " + outside +
                                                      "\nMaxJobCount=7\n");
  EXPECT_EQ(Named(*files, "nodes.d/b.conf")->content, "NodeName=n2\nInclude ../more.conf\n");

  // Written elsewhere, the set loads as the original does.
  TempDir cache;
  ASSERT_TRUE(WriteConfigCache(cache.path().string(), *files).ok());
  Diagnostics diags;
  auto config = LoadClusterConfig((cache.path() / "slurm.conf").string(), diags);
  ASSERT_TRUE(config.ok()) << diags.ToString();
  EXPECT_EQ((*config)->nodes.size(), 3u);
  EXPECT_EQ((*config)->partitions.size(), 1u);
  EXPECT_TRUE((*config)->cgroup.constrain_cores);
  EXPECT_EQ((*config)->settings.max_job_count, 7u);
  EXPECT_FALSE(fs::exists(cache.path() / "slurmdbd.conf"));
}

TEST(ConfigFilesTest, AnIncludeThatMatchesNothingIsAnError) {
  TempDir etc;
  Write(etc.path() / "slurm.conf", std::string(kMinimalHead) + "Include gone.conf\n");
  auto files = CollectConfigFiles((etc.path() / "slurm.conf").string());
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.status().message().find("Include gone.conf matches no file"), std::string::npos);
  EXPECT_FALSE(CollectConfigFiles((etc.path() / "none.conf").string()).ok());
}

TEST(ConfigFilesTest, TheCacheDropsFilesTheNewSetLacksAndKeepsTheKeyLink) {
  TempDir cache;
  TempDir etc;
  Write(etc.path() / "slurm.key", "key");
  const std::string dir = (cache.path() / "conf").string();
  ASSERT_TRUE(WriteConfigCache(
                  dir, {{"slurm.conf", "A=1\n"}, {"topology.conf", "T\n"}, {"d/x.conf", "X\n"}})
                  .ok());
  ASSERT_TRUE(LinkHostKey(dir, (etc.path() / "slurm.key").string()).ok());
  ASSERT_TRUE(LinkHostKey(dir, (etc.path() / "slurm.key").string()).ok());  // Again: no change
  EXPECT_EQ(Read(fs::path(dir) / "slurm.key"), "key");
  struct stat st {};
  ASSERT_EQ(stat((fs::path(dir) / "slurm.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  ASSERT_TRUE(WriteConfigCache(dir, {{"slurm.conf", "A=2\n"}, {"gres.conf", "G\n"}}).ok());
  EXPECT_EQ(Read(fs::path(dir) / "slurm.conf"), "A=2\n");
  EXPECT_EQ(Read(fs::path(dir) / "gres.conf"), "G\n");
  EXPECT_FALSE(fs::exists(fs::path(dir) / "topology.conf"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "d/x.conf"));
  EXPECT_TRUE(fs::is_symlink(fs::path(dir) / "slurm.key"));
  // No temporaries left behind.
  size_t entries = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    entries += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(entries, 3u);  // slurm.conf, gres.conf, the key through its link
}

TEST(ConfigFilesTest, TheCacheRefusesUnsafeNamesBeforeWritingAnything) {
  TempDir cache;
  const std::string dir = (cache.path() / "conf").string();
  for (const char* bad : {"../evil", "/etc/passwd", "a//b", "slurm.key", "", "./x"}) {
    Status s = WriteConfigCache(dir, {{"slurm.conf", "A=1\n"}, {bad, "x"}});
    EXPECT_FALSE(s.ok()) << bad;
  }
  EXPECT_FALSE(WriteConfigCache(dir, {{"gres.conf", "G\n"}}).ok());  // No slurm.conf
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(IsSafeConfigFileName("nodes.d/a.conf"));
  EXPECT_TRUE(IsSafeConfigFileName("included/etc/x.conf"));
}

TEST(ConfigFilesTest, NoKeyNoLink) {
  TempDir cache;
  ASSERT_TRUE(LinkHostKey(cache.path().string(), (cache.path() / "absent.key").string()).ok());
  EXPECT_FALSE(fs::exists(cache.path() / "slurm.key"));
}

}  // namespace
}  // namespace rota::conf
