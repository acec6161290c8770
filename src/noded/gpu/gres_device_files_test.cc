// Which devices ConstrainDevices denies: the node's GRES files not given to the
// job, found by device number. Real device files of /dev stand in for GPUs
// (no mknod needed); tests/integration opens them from inside real cages.
#include "noded/gpu/gres_device_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/config_files.h"

namespace rota::noded {
namespace {

using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

constexpr DeviceRule kNull{'c', 1, 3};
constexpr DeviceRule kZero{'c', 1, 5};
constexpr DeviceRule kFull{'c', 1, 7};
constexpr DeviceRule kRandom{'c', 1, 8};

// n1 and n2 share a host (one address); n3 is a host of its own. n1 has a
// GPU and a NIC GRES with files; a count-only GRES has none.
std::shared_ptr<const conf::ClusterConfig> ThreeNodes(const TempDir& dir) {
  auto loaded = LoadConfigFiles(
      dir, {"ClusterName=test\n"
            "SlurmctldHost=ctl\n"
            "GresTypes=gpu,nic,lic\n"
            "NodeName=n1 NodeAddr=10.1.0.1 Port=17001 CPUs=4 Gres=gpu:1,nic:1,lic:4\n"
            "NodeName=n2 NodeAddr=10.1.0.1 Port=17002 CPUs=4 Gres=gpu:1\n"
            "NodeName=n3 NodeAddr=10.1.0.3 CPUs=4 Gres=gpu:1\n"
            "PartitionName=p Nodes=ALL\n",
            "NodeName=n1 Name=gpu File=/dev/null\n"
            "NodeName=n1 Name=nic File=/dev/full\n"
            "NodeName=n1 Name=lic Count=4\n"
            "NodeName=n2 Name=gpu File=/dev/zero\n"
            "NodeName=n3 Name=gpu File=/dev/random\n"});
  EXPECT_TRUE(loaded.config.ok()) << loaded.Text();
  return loaded.config.ok() ? *loaded.config : nullptr;
}

TEST(GresDeviceFilesTest, TheHostsFilesAreEveryGresOfItsNodes) {
  TempDir dir;
  auto config = ThreeNodes(dir);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(HostGresFiles(*config, "n1", {}),
            (std::vector<std::string>{"/dev/full", "/dev/null", "/dev/zero"}));
  EXPECT_EQ(HostGresFiles(*config, "n3", {}), std::vector<std::string>{"/dev/random"});
  // Discovered GPUs (NVML) count as well, MIG parents included.
  GpuDevice mig(0, "1g.10gb", "/dev/urandom");
  mig.parent_file = "/dev/random";
  EXPECT_EQ(HostGresFiles(*config, "n3", {mig}),
            (std::vector<std::string>{"/dev/random", "/dev/urandom"}));
}

TEST(GresDeviceFilesTest, AJobIsDeniedTheHostsGresFilesItWasNotGiven) {
  TempDir dir;
  auto config = ThreeNodes(dir);
  ASSERT_NE(config, nullptr);
  std::vector<GpuDevice> inventory{GpuDevice(0, "", "/dev/null")};
  // Holding the GPU: the NIC and the other node's GPU on this host stay shut.
  EXPECT_EQ(DeniedDevicesFor(*config, "n1", inventory, inventory),
            (std::vector<DeviceRule>{kZero, kFull}));
  // Holding nothing: all three.
  EXPECT_EQ(DeniedDevicesFor(*config, "n1", inventory, {}),
            (std::vector<DeviceRule>{kNull, kZero, kFull}));
  // n3 alone on its host.
  EXPECT_EQ(DeniedDevicesFor(*config, "n3", {}, {}), std::vector<DeviceRule>{kRandom});
}

TEST(GresDeviceFilesTest, DevicesAreComparedByNumberAndMissingFilesSkipped) {
  TempDir dir;
  const std::string alias = (dir.path() / "gpu-alias").string();
  std::filesystem::create_symlink("/dev/zero", alias);
  // Another path to a granted device does not deny it.
  EXPECT_EQ(DeniedDeviceRules({"/dev/zero", "/dev/full", (dir.path() / "gone").string()}, {alias}),
            std::vector<DeviceRule>{kFull});
  // A MIG instance needs its parent: two instances of one GPU, one granted.
  GpuDevice mine(0, "1g.10gb", "/dev/zero");
  mine.parent_file = "/dev/null";
  GpuDevice other(1, "1g.10gb", "/dev/full");
  other.parent_file = "/dev/null";
  EXPECT_EQ(GrantedFiles({mine}), (std::vector<std::string>{"/dev/zero", "/dev/null"}));
  EXPECT_EQ(DeniedDeviceRules(GrantedFiles({mine, other}), GrantedFiles({mine})),
            std::vector<DeviceRule>{kFull});
  // A regular file is no device.
  EXPECT_TRUE(DeniedDeviceRules({"/etc/hostname"}, {}).empty());
}

// gres.conf MultipleFiles= (MIG by hand): all of a device's files are the
// host's, and granted with it.
TEST(GresDeviceFilesTest, MultipleFilesAreDeniedAndGrantedTogether) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {"ClusterName=test\nSlurmctldHost=ctl\nGresTypes=gpu\n"
                                      "NodeName=m1 CPUs=4 Gres=gpu:2\nPartitionName=p Nodes=ALL\n",
                                      "NodeName=m1 Name=gpu MultipleFiles=/dev/null,/dev/zero\n"
                                      "NodeName=m1 Name=gpu MultipleFiles=/dev/null,/dev/full\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  std::vector<GpuDevice> gpus = GpuAllocator::InventoryOf(**loaded.config, "m1");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(HostGresFiles(**loaded.config, "m1", gpus),
            (std::vector<std::string>{"/dev/full", "/dev/null", "/dev/zero"}));
  // The first instance: its capability and the shared parent open, the other's not.
  EXPECT_EQ(DeniedDevicesFor(**loaded.config, "m1", gpus, {gpus[0]}),
            std::vector<DeviceRule>{kFull});
  EXPECT_EQ(DeniedDevicesFor(**loaded.config, "m1", gpus, {}),
            (std::vector<DeviceRule>{kNull, kZero, kFull}));
}

}  // namespace
}  // namespace rota::noded
