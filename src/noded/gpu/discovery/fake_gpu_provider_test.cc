#include "noded/gpu/discovery/fake_gpu_provider.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

TEST(FakeGpuProviderTest, ReadsTheInventoryFile) {
  testing::TempDir dir;
  std::string path = dir.Write("gpus",
                               "# two whole GPUs and a MIG instance\n"
                               "Type=a100 File=/dev/nvidia0 Cpus=0-3,8 PciBusId=00000000:07:00.0\n"
                               "\n"
                               "type=a100\tfile=/dev/nvidia3   # tab and comment\n"
                               "Type=1g.10gb File=/dev/nvidia-caps/nvidia-cap21 "
                               "ParentFile=/dev/nvidia1 Minor=1 Uuid=MIG-1\n");
  FakeGpuProvider provider(path);
  EXPECT_EQ(provider.Name(), "fake inventory " + path);
  auto gpus = provider.Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 3u);
  const DiscoveredGpu& first = (*gpus)[0];
  EXPECT_EQ(first.index, 0u);
  EXPECT_EQ(first.type, "a100");
  EXPECT_EQ(first.device_file, "/dev/nvidia0");
  EXPECT_EQ(first.minor, 0u);
  EXPECT_EQ(first.pci_bus_id, "00000000:07:00.0");
  EXPECT_EQ(first.cpus, (std::vector<uint32_t>{0, 1, 2, 3, 8}));
  EXPECT_FALSE(first.is_mig());
  EXPECT_EQ((*gpus)[1].index, 1u);
  EXPECT_EQ((*gpus)[1].minor, 3u);  // From the file's name.
  const DiscoveredGpu& mig = (*gpus)[2];
  EXPECT_TRUE(mig.is_mig());
  EXPECT_EQ(mig.type, "1g.10gb");
  EXPECT_EQ(mig.minor, 1u);
  EXPECT_EQ(mig.parent_device_file, "/dev/nvidia1");
  EXPECT_EQ(mig.uuid, "MIG-1");
}

TEST(FakeGpuProviderTest, BadLinesAndMissingFilesAreErrors) {
  auto no_file = ParseFakeGpuInventory("Type=a100\n", "inv");
  EXPECT_EQ(no_file.status().message(), "inv:1: File= is missing");
  auto unknown = ParseFakeGpuInventory("\nType=a File=/dev/x Colour=red\n", "inv");
  EXPECT_EQ(unknown.status().message(), "inv:2: unknown key \"Colour\"");
  auto cpus = ParseFakeGpuInventory("Type=a File=/dev/x Cpus=3-1\n", "inv");
  EXPECT_EQ(cpus.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ParseFakeGpuInventory("# nothing\n", "inv")->empty());

  FakeGpuProvider missing("/nonexistent/rota-fake-gpus");
  EXPECT_EQ(missing.Discover().status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace rota::noded
