#include "conf/config_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

TEST(ConfigLoaderTest, DefaultPathFollowsSlurmConf) {
  setenv("SLURM_CONF", "/tmp/x/slurm.conf", 1);
  EXPECT_EQ(DefaultSlurmConfPath(), "/tmp/x/slurm.conf");
  unsetenv("SLURM_CONF");
  EXPECT_EQ(DefaultSlurmConfPath(), "/etc/slurm/slurm.conf");
}

TEST(ConfigLoaderTest, ReportsEveryErrorInOneRun) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "KillWait=x\n"
                                                        "NodeName=n1 CPUs=y\n"
                                                        "PartitionName=p Nodes=n1 MaxTime=z\n"});
  ASSERT_FALSE(loaded.config.ok());
  EXPECT_EQ(loaded.diags.error_count(), 3);
  EXPECT_NE(loaded.config.status().message().find("3 errors in the configuration"),
            std::string::npos);
}

TEST(ConfigLoaderTest, CgroupConfValues) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=n1\n", "",
                                      "CgroupPlugin=cgroup/v2\nConstrainCores=yes\n"
                                      "ConstrainRAMSpace=yes\nAllowedRAMSpace=95.5\n"
                                      "CgroupAutomount=yes\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const CgroupConf& c = (*loaded.config)->cgroup;
  EXPECT_EQ(c.plugin, "cgroup/v2");
  EXPECT_TRUE(c.constrain_cores);
  EXPECT_TRUE(c.constrain_ram_space);
  EXPECT_FALSE(c.constrain_devices);
  EXPECT_DOUBLE_EQ(c.allowed_ram_space_percent, 95.5);
  // The one finding: the key Rota accepts without acting on it.
  EXPECT_EQ(loaded.Text(),
            "warning: cgroup.conf line 5: CgroupAutomount is accepted, has no "
            "effect in Rota\n");
}

TEST(ConfigLoaderTest, CgroupConfErrors) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=n1\n", "",
                                      "CgroupPlugin=cgroup/v3\nConstrainDevices=perhaps\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("cgroup.conf line 1: CgroupPlugin=cgroup/v3 is not one of "
                               "autodetect, cgroup/v1, cgroup/v2"),
            std::string::npos)
      << loaded.Text();
  EXPECT_NE(loaded.Text().find("cgroup.conf line 2: ConstrainDevices=perhaps is not YES or NO"),
            std::string::npos);
}

// MaxTasksPerJob, Rota's own: a number of tasks, 0 for none, else an error at its line.
TEST(ConfigLoaderTest, CgroupConfMaxTasksPerJob) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=n1\n", "",
                                      "ConstrainCores=yes\nMaxTasksPerJob=512\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ((*loaded.config)->cgroup.max_tasks_per_job, std::optional<uint64_t>(512));
  TempDir unset;
  loaded = LoadConfigFiles(unset, {std::string(kMinimalHead) + "NodeName=n1\n", "", ""});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_FALSE((*loaded.config)->cgroup.max_tasks_per_job.has_value());
  TempDir bad;
  loaded = LoadConfigFiles(
      bad, {std::string(kMinimalHead) + "NodeName=n1\n", "", "\nMaxTasksPerJob=lots\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("cgroup.conf line 2: MaxTasksPerJob=lots is not a number of tasks"),
            std::string::npos)
      << loaded.Text();
}

// The commands read slurm.conf alone: what the node files say (even an error
// in them) is the daemons' business, as with Slurm's commands.
TEST(ConfigLoaderTest, SlurmConfOnlyLeavesTheNodeFilesUnread) {
  TempDir dir;
  const std::string slurm = std::string(kMinimalHead) +
                            "TopologyPlugin=topology/tree\n"
                            "NodeName=n1 CPUs=8 Gres=gpu:2\nPartitionName=p Nodes=n1\n";
  auto full = LoadConfigFiles(
      dir, {slurm, "NodeName=n1 Name=gpu File=/dev/nvidia[0-1]\n", "ConstrainDevices=perhaps\n"});
  EXPECT_FALSE(full.config.ok());  // The bad cgroup.conf, and no topology.conf
  EXPECT_NE(full.Text().find("topology.conf"), std::string::npos) << full.Text();

  Diagnostics diags;
  auto only =
      LoadClusterConfig((dir.path() / "slurm.conf").string(), diags, ConfigScope::kSlurmConfOnly);
  ASSERT_TRUE(only.ok()) << diags.ToString();
  EXPECT_EQ((*only)->nodes.size(), 1u);
  EXPECT_EQ((*only)->partitions.size(), 1u);
  EXPECT_TRUE((*only)->gres.devices_by_node.empty());
  EXPECT_FALSE((*only)->cgroup.constrain_devices);
  EXPECT_EQ(diags.error_count(), 0) << diags.ToString();
}

}  // namespace
}  // namespace rota::conf
