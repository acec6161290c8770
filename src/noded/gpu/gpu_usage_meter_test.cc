#include "noded/gpu/gpu_usage_meter.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

GpuReading Reading(std::string file, uint32_t util, uint64_t mem_gib, uint32_t watts) {
  GpuReading r;
  r.device_file = std::move(file);
  r.util_pct = util;
  r.mem_used_bytes = mem_gib << 30;
  r.mem_total_bytes = 80ULL << 30;
  r.power_mw = watts * 1000;
  return r;
}

TEST(GpuUsageMeterTest, SumsAJobsGpusPerSampleThenAveragesAndPeaksOverSamples) {
  GpuUsageMeter meter({"/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2"});
  meter.Watch(7, {0, 1}, 100.0);
  meter.Watch(8, {2}, 100.0);
  meter.Record({Reading("/dev/nvidia0", 10, 1, 100), Reading("/dev/nvidia1", 30, 3, 100),
                Reading("/dev/nvidia2", 90, 9, 300)},
               110.0);
  meter.Record({Reading("/dev/nvidia0", 100, 5, 300), Reading("/dev/nvidia1", 50, 1, 100),
                Reading("/dev/nvidia2", 0, 0, 50)},
               130.0);
  EXPECT_DOUBLE_EQ(*meter.LatestMeanUtil(7), 75.0);  // (100 + 50) / 2 GPUs
  EXPECT_DOUBLE_EQ(*meter.LatestMeanUtil(8), 0.0);
  EXPECT_FALSE(meter.LatestMeanUtil(9).has_value());
  std::optional<wire::GpuUsage> u = meter.Finish(7);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->gpus(), 2u);
  EXPECT_EQ(u->samples(), 2u);
  EXPECT_DOUBLE_EQ(u->util_ave(), (40.0 + 150.0) / 2);  // summed over the two GPUs
  EXPECT_EQ(u->util_max(), 150u);
  EXPECT_EQ(u->mem_max_bytes(), 6ULL << 30);
  EXPECT_EQ(u->mem_ave_bytes(), 5ULL << 30);
  EXPECT_EQ(u->mem_total_bytes(), 160ULL << 30);
  // 200 W for the 10 s up to the first sample, 400 W for the 20 s to the second.
  EXPECT_DOUBLE_EQ(u->energy_j(), 200.0 * 10 + 400.0 * 20);
  EXPECT_EQ(u->power_max_mw(), 400000u);
  EXPECT_FALSE(meter.Current(7).has_value()) << "finished jobs are no longer watched";
  std::optional<wire::GpuUsage> other = meter.Current(8);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->util_max(), 90u);
  EXPECT_DOUBLE_EQ(other->util_ave(), 45.0);
}

TEST(GpuUsageMeterTest, AJobWhoseGpusWereNeverReadHasNoSamples) {
  // Index 1 is a GPU known only by count: nothing can read it.
  GpuUsageMeter meter({"/dev/nvidia0", ""});
  meter.Watch(3, {1}, 0.0);
  meter.Record({Reading("/dev/nvidia0", 50, 1, 100)}, 5.0);
  std::optional<wire::GpuUsage> u = meter.Finish(3);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->samples(), 0u);
  EXPECT_EQ(u->gpus(), 1u);
  EXPECT_FALSE(meter.Finish(99).has_value());
}

TEST(GpuUsageMeterTest, WatchingAgainStartsAfreshAndWatchedListsJobs) {
  GpuUsageMeter meter({"/dev/nvidia0"});
  meter.Watch(1, {0}, 0.0);
  meter.Record({Reading("/dev/nvidia0", 80, 1, 100)}, 1.0);
  meter.Watch(1, {0}, 2.0);  // A requeued run
  EXPECT_EQ(meter.Current(1)->samples(), 0u);
  EXPECT_EQ(meter.Watched(), (std::map<uint64_t, std::vector<uint32_t>>{{1, {0}}}));
}

}  // namespace
}  // namespace rota::noded
