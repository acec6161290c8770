#include "noded/gpu/gpu_allocator.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::noded {
namespace {

std::vector<uint32_t> Indices(const std::vector<GpuDevice>& devices) {
  std::vector<uint32_t> out;
  for (const GpuDevice& d : devices) out.push_back(d.index);
  return out;
}

GpuAllocator MixedNode() {
  return GpuAllocator({{0, "a100", "/dev/g0"},
                       {1, "a100", "/dev/g1"},
                       {2, "v100", "/dev/g2"},
                       {3, "a100", "/dev/g3"}});
}

TEST(GpuAllocatorTest, TakesLowestFreeOfTheTypeAndFreesOnRelease) {
  GpuAllocator gpus = MixedNode();
  auto a = gpus.Allocate(1, 2, "a100");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Indices(*a), (std::vector<uint32_t>{0, 1}));
  auto b = gpus.Allocate(2, 1, "");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Indices(*b), std::vector<uint32_t>{2});
  auto c = gpus.Allocate(3, 2, "a100");
  EXPECT_EQ(c.status().code(), StatusCode::kFailedPrecondition);
  // Asking again for a job that holds GPUs (a retried launch) gives the same ones.
  EXPECT_EQ(Indices(*gpus.Allocate(1, 2, "a100")), (std::vector<uint32_t>{0, 1}));
  gpus.Release(1);
  EXPECT_EQ(Indices(*gpus.Allocate(3, 2, "a100")), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(gpus.GresSummary(), "gpu:a100:3,gpu:v100:1");
}

TEST(GpuAllocatorTest, ExactIndicesFromTheController) {
  GpuAllocator gpus = MixedNode();
  auto a = gpus.AllocateExact(1, {3, 1});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Indices(*a), (std::vector<uint32_t>{3, 1}));
  EXPECT_EQ(gpus.AllocateExact(2, {1}).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(gpus.AllocateExact(2, {4}).status().code(), StatusCode::kFailedPrecondition);
  // Count-based allocation sees them taken.
  EXPECT_EQ(Indices(*gpus.Allocate(2, 1, "a100")), std::vector<uint32_t>{0});
  gpus.Release(1);
  EXPECT_EQ(Indices(*gpus.AllocateExact(3, {1, 3})), (std::vector<uint32_t>{1, 3}));
}

TEST(GpuAllocatorTest, InventoryFromGresConfOrNodeLine) {
  testing::TempDir dir;
  auto loaded = testing::LoadConfigFiles(
      dir,
      testing::ConfigFiles(std::string(testing::kMinimalHead) + "NodeName=a[1-2] Gres=gpu:a100:2\n"
                                                                "NodeName=b1 Gres=gpu:3\n"
                                                                "PartitionName=p Nodes=ALL\n",
                           "NodeName=a1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n"
                           "NodeName=a2 Name=gpu Type=a100 File=/dev/nvidia[2-3] Cores=0\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  std::vector<GpuDevice> a2 = GpuAllocator::InventoryOf(**loaded.config, "a2");
  ASSERT_EQ(a2.size(), 2u);
  EXPECT_EQ(a2[0].index, 0u);
  EXPECT_EQ(a2[0].file, "/dev/nvidia2");
  EXPECT_EQ(a2[1].type, "a100");
  EXPECT_EQ(a2[1].cores, (std::vector<uint32_t>{0}));  // For --gpu-bind=closest.
  EXPECT_TRUE(GpuAllocator::InventoryOf(**loaded.config, "a1")[0].cores.empty());
  std::vector<GpuDevice> b1 = GpuAllocator::InventoryOf(**loaded.config, "b1");
  ASSERT_EQ(b1.size(), 3u);
  EXPECT_EQ(b1[2].index, 2u);
  EXPECT_EQ(b1[2].file, "");
}

TEST(GpuAllocatorTest, OnlyDevicesThatAreThereCount) {
  testing::TempDir dir;
  std::string plain = dir.Write("not-a-device", "");
  std::vector<std::string> missing;
  std::vector<GpuDevice> present = GpuAllocator::Present({{0, "a100", "/dev/null"},
                                                          {1, "a100", "/nonexistent/nvidia1"},
                                                          {2, "a100", plain},
                                                          {3, "a100", "/dev/zero"},
                                                          {4, "", ""}},
                                                         &missing);
  EXPECT_EQ(Indices(present), (std::vector<uint32_t>{0, 3, 4}));
  EXPECT_EQ(missing, (std::vector<std::string>{"/nonexistent/nvidia1", plain}));
  EXPECT_EQ(GpuAllocator(present).GresSummary(), "gpu:a100:2,gpu:1");
}

}  // namespace
}  // namespace rota::noded
