#include "conf/gres_conf_parser.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr const char* kTwoGpuNodes = "NodeName=g[1-2] Sockets=2 CoresPerSocket=8 Gres=gpu:a100:4\n";

TEST(GresConfParserTest, FilesExpandPerNodeWithAffinity) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + kTwoGpuNodes,
                            "AutoDetect=off\n"
                            "NodeName=g[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-7\n"
                            "NodeName=g[1-2] Name=gpu Type=a100 File=/dev/nvidia[2-3] Cores=8-15 "
                            "Flags=nvidia_gpu_env\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const GresConf& g = (*loaded.config)->gres;
  EXPECT_EQ(g.AutoDetectFor("g1"), "off");
  const auto* devices = g.DevicesOf("g2");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 4u);
  EXPECT_EQ((*devices)[3].file, "/dev/nvidia3");
  EXPECT_EQ((*devices)[3].type, "a100");
  EXPECT_EQ((*devices)[3].cores.front(), 8u);
  EXPECT_EQ((*devices)[3].flags, std::vector<std::string>{"nvidia_gpu_env"});
  EXPECT_EQ((*devices)[0].where.line, 2);
}

// MIG configured by hand, as sites without NVML autodetection write it: each
// instance is one device reached through its parent GPU and capability files.
TEST(GresConfParserTest, MultipleFilesAreOneDevice) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, {std::string(kMinimalHead) + "NodeName=m1 CPUs=8 Gres=gpu:1g.10gb:2\n",
            "AutoDetect=off\n"
            "NodeName=m1 Name=gpu Type=1g.10gb "
            "MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap[21-22]\n"
            "NodeName=m1 Name=gpu Type=1g.10gb "
            "MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap30,/dev/nvidia-caps/"
            "nvidia-cap31\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ(loaded.Text(), "");
  const auto* devices = (*loaded.config)->gres.DevicesOf("m1");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].file, "/dev/nvidia0");
  EXPECT_EQ((*devices)[0].more_files, (std::vector<std::string>{"/dev/nvidia-caps/nvidia-cap21",
                                                                "/dev/nvidia-caps/nvidia-cap22"}));
  EXPECT_EQ((*devices)[1].more_files.back(), "/dev/nvidia-caps/nvidia-cap31");
}

TEST(GresConfParserTest, MultipleFilesWithFileOrACountIsAnError) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=m1 CPUs=8 Gres=gpu:1\n",
                            "NodeName=m1 Name=gpu File=/dev/nvidia0 MultipleFiles=/dev/nvidia0\n"
                            "NodeName=m1 Name=gpu Count=2 MultipleFiles=/dev/nvidia0,/dev/x\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(
      loaded.Text().find("gres.conf line 1: File= and MultipleFiles= cannot be given together"),
      std::string::npos)
      << loaded.Text();
  EXPECT_NE(loaded.Text().find("gres.conf line 2: Count=2 with MultipleFiles=: the files are one "
                               "device"),
            std::string::npos)
      << loaded.Text();
}

TEST(GresConfParserTest, LinesWithoutNodeNameApplyToEveryNode) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + kTwoGpuNodes,
                                      "Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ((*loaded.config)->gres.DevicesOf("g1")->size(), 4u);
  EXPECT_EQ((*loaded.config)->gres.DevicesOf("g2")->size(), 4u);
}

TEST(GresConfParserTest, CountMismatchNamesBothFilesAndGroupsNodes) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + kTwoGpuNodes,
                            "# comment\n"
                            "NodeName=g[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-2]\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_EQ(loaded.Text(),
            "error: gres.conf line 2: g[1-2] declare Gres=gpu:a100:4 in slurm.conf (line 4) but "
            "gres.conf describes 3 devices\n");
}

TEST(GresConfParserTest, WrongTypeCountsAsMissingDevices) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + kTwoGpuNodes,
                                      "NodeName=g1 Name=gpu Type=h100 File=/dev/nvidia[0-3]\n"
                                      "NodeName=g2 Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_EQ(loaded.Text(),
            "error: gres.conf line 1: g1 declares Gres=gpu:a100:4 in slurm.conf (line 4) but "
            "gres.conf describes 0 devices\n");
}

TEST(GresConfParserTest, CoresOutsideTheNodeAreAnError) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {std::string(kMinimalHead) + kTwoGpuNodes,
                                      "Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-31\n"});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_EQ(loaded.Text(),
            "error: gres.conf line 1: Cores= names core 31 but g[1-2] have cores 0-15\n");
}

TEST(GresConfParserTest, CountOnlyGresAndCountChecks) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\nGresTypes=gpu,shard\n"
                                      "NodeName=g1 Gres=gpu:2,shard:2k\n",
                                      "NodeName=g1 Name=shard Count=2k\n"
                                      "NodeName=g1 Name=gpu File=/dev/nvidia[0-1] Count=3\n"
                                      "NodeName=g1 Name=nic Count=1\n"
                                      "NodeName=g1 Type=x\n"
                                      "NodeName=x9 Name=gpu File=/dev/nvidia0\n"});
  EXPECT_FALSE(loaded.config.ok());
  std::string text = loaded.Text();
  EXPECT_NE(text.find("error: gres.conf line 2: Count=3 does not match the 2 devices of "
                      "File=/dev/nvidia[0-1]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("error: gres.conf line 3: Name=nic is not listed in GresTypes"),
            std::string::npos);
  EXPECT_NE(text.find("error: gres.conf line 4: Name= is missing"), std::string::npos);
  EXPECT_NE(text.find("warning: gres.conf line 5: NodeName= names x9 that slurm.conf does not "
                      "define (ignored)"),
            std::string::npos);
}

TEST(GresConfParserTest, CountOnlyGresLoads) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"ClusterName=c\nSlurmctldHost=h\nGresTypes=shard\n"
                                      "NodeName=g1 Gres=shard:2k\n",
                                      "NodeName=g1 Name=shard Count=2k\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ((*loaded.config)->gres.DevicesOf("g1")->front().count, 2048u);
}

}  // namespace
}  // namespace rota::conf
