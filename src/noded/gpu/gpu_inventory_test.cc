#include "noded/gpu/gpu_inventory.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::noded {
namespace {

std::vector<std::string> Types(const std::vector<GpuDevice>& devices) {
  std::vector<std::string> out;
  for (const GpuDevice& d : devices) out.push_back(d.type);
  return out;
}

DiscoveredGpu Found(std::string type, std::string file) {
  DiscoveredGpu gpu;
  gpu.type = std::move(type);
  gpu.device_file = std::move(file);
  return gpu;
}

TEST(GpuInventoryTest, GresConfOverridesAndFillsInWhatDiscoveryFound) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir, testing::ConfigFiles(std::string(testing::kMinimalHead) +
                                    "NodeName=n1 CPUs=8 Gres=gpu:a100:1,gpu:big:1\n"
                                    "PartitionName=p Nodes=ALL\n",
                                "AutoDetect=nvml\n"
                                "NodeName=n1 Name=gpu Type=big File=/dev/nvidia1 Cores=2-3\n"
                                "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia7\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  std::vector<DiscoveredGpu> found = {
      Found("a100-sxm4-80gb", "/dev/nvidia0"), Found("a100-sxm4-80gb", "/dev/nvidia1"),
      Found("1g.10gb", "/dev/nvidia-caps/nvidia-cap21"), Found("v100", "/dev/nvidia3")};
  found[0].cpus = {0, 1};
  found[2].parent_device_file = "/dev/nvidia2";
  found[2].uuid = "MIG-1";
  std::vector<std::string> warnings;
  std::vector<GpuDevice> merged = MergeWithGresConf(found, **loaded.config, "n1", &warnings);
  // nvidia0: no line names it, but it is an a100 as slurm.conf counts them.
  // nvidia1: its gres.conf line gives type and cores. The rest stay as found.
  EXPECT_EQ(Types(merged), (std::vector<std::string>{"a100", "big", "1g.10gb", "v100"}));
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].cpus, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(merged[0].cores.empty());
  EXPECT_EQ(merged[1].cores, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(merged[2].index, 2u);
  EXPECT_EQ(merged[2].file, "/dev/nvidia-caps/nvidia-cap21");
  EXPECT_EQ(merged[2].parent_file, "/dev/nvidia2");
  EXPECT_EQ(merged[2].uuid, "MIG-1");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("GPU /dev/nvidia7 was not discovered"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("line 3"), std::string::npos) << warnings[0];
}

TEST(GpuInventoryTest, AutoDetectNvmlUsesTheLibrary) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir, testing::ConfigFiles(std::string(testing::kMinimalHead) +
                                    "NodeName=n1 Gres=gpu:a100:1,gpu:1g.10gb:2\n"
                                    "PartitionName=p Nodes=ALL\n",
                                "AutoDetect=nvml\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  GpuInventoryOptions options;
  options.nvml_library = FAKE_NVML_LIBRARY;
  options.mig_minors_path = dir.Write("mig-minors", "gpu1/gi1/ci0/access 11\n");
  GpuInventory inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(inventory.source, "nvml");
  EXPECT_TRUE(inventory.warnings.empty());
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:1,gpu:1g.10gb:2");
  ASSERT_EQ(inventory.devices.size(), 3u);
  EXPECT_EQ(inventory.devices[0].file, "/dev/nvidia0");
  EXPECT_EQ(inventory.devices[1].file, "/dev/nvidia-caps/nvidia-cap11");
  EXPECT_EQ(inventory.devices[2].file, "/dev/nvidia1");  // Not in mig-minors.
}

TEST(GpuInventoryTest, NvmlFailureFallsBackToTheConfiguration) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir, testing::ConfigFiles(std::string(testing::kMinimalHead) + "NodeName=n1 Gres=gpu:a100:2\n"
                                                                     "PartitionName=p Nodes=ALL\n",
                                "AutoDetect=nvml\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  GpuInventoryOptions options;
  options.nvml_library = FAKE_NVML_INIT_FAILS_LIBRARY;
  GpuInventory inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(inventory.source, "slurm.conf Gres= (nvml failed)");
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:2");
  ASSERT_EQ(inventory.warnings.size(), 1u);
  EXPECT_NE(inventory.warnings[0].find("nvmlInit_v2 failed"), std::string::npos);
}

TEST(GpuInventoryTest, AutoDetectOffIsGresConfOnly) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir, testing::ConfigFiles(std::string(testing::kMinimalHead) + "NodeName=n1 Gres=gpu:a100:2\n"
                                                                     "PartitionName=p Nodes=ALL\n",
                                "AutoDetect=off\n"
                                "NodeName=n1 Name=gpu Type=a100 File=/dev/null\n"
                                "NodeName=n1 Name=gpu Type=a100 File=/nonexistent/nvidia1\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  GpuInventoryOptions options;
  options.nvml_library = FAKE_NVML_LIBRARY;  // Not to be used.
  GpuInventory inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(inventory.source, "gres.conf");
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:1");
  ASSERT_EQ(inventory.warnings.size(), 1u);
  EXPECT_NE(inventory.warnings[0].find("/nonexistent/nvidia1"), std::string::npos);

  options.config_overrides = true;
  inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:2");
  EXPECT_TRUE(inventory.warnings.empty());
}

TEST(GpuInventoryTest, FakeInventoryWhenConfigured) {
  testing::TempDir dir;
  auto loaded =
      testing::LoadConfigFiles(dir, testing::ConfigFiles(std::string(testing::kMinimalHead) +
                                                         "NodeName=n1 Gres=gpu:a100:2\n"
                                                         "PartitionName=p Nodes=ALL\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  GpuInventoryOptions options;
  options.fake_gpus_file = dir.Write("gpus", "Type=a100 File=/dev/fake0\n");
  GpuInventory inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(inventory.source, "fake inventory " + options.fake_gpus_file);
  // One GPU where two are configured: registration says so and the
  // controller drains the node.
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:1");

  options.fake_gpus_file = (dir.path() / "missing").string();
  inventory = TakeGpuInventory(**loaded.config, "n1", options);
  EXPECT_EQ(inventory.source,
            "slurm.conf Gres= (fake inventory " + options.fake_gpus_file + " failed)");
  EXPECT_EQ(GpuAllocator(inventory.devices).GresSummary(), "gpu:a100:2");
}

}  // namespace
}  // namespace rota::noded
