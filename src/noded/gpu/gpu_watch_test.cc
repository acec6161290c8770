#include "noded/gpu/gpu_watch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace rota::noded {
namespace {

// Readings a test sets before each sample.
class ScriptedSampler : public GpuSampler {
 public:
  explicit ScriptedSampler(std::vector<GpuReading>* next) : next_(next) {}
  std::string Name() const override { return "scripted"; }
  Result<std::vector<GpuReading>> Sample() override {
    ++calls;
    if (fail) return Internal("driver gone");
    std::vector<GpuReading> out = *next_;
    for (GpuReading& r : *next_) r.events.clear();  // Events are told once
    return out;
  }
  int calls = 0;
  bool fail = false;

 private:
  std::vector<GpuReading>* next_;
};

GpuReading Reading(std::string file, uint32_t util, uint32_t watts) {
  GpuReading r;
  r.device_file = std::move(file);
  r.util_pct = util;
  r.mem_used_bytes = 1ULL << 30;
  r.mem_total_bytes = 80ULL << 30;
  r.power_mw = watts * 1000;
  return r;
}

struct WatchFixture {
  std::vector<GpuReading> next{Reading("/dev/nvidia0", 0, 50), Reading("/dev/nvidia1", 0, 50)};
  ScriptedSampler* sampler = nullptr;
  std::vector<GpuHealthEvent> health;
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  std::unique_ptr<GpuWatch> watch;

  explicit WatchFixture(GpuWatch::ProcessOwner owner = [](pid_t) { return std::nullopt; }) {
    auto s = std::make_unique<ScriptedSampler>(&next);
    sampler = s.get();
    std::vector<GpuDevice> devices{{0, "a100", "/dev/nvidia0"}, {1, "a100", "/dev/nvidia1"}};
    watch = std::make_unique<GpuWatch>(
        std::move(s), devices, std::chrono::seconds(0),
        [this](const GpuHealthEvent& e) { health.push_back(e); }, std::move(owner),
        [this] { return now; });
  }
};

TEST(GpuWatchTest, MeasuresAJobsGpusFromWatchToFinish) {
  WatchFixture f;
  f.watch->Watch(4, {1});
  f.now += std::chrono::seconds(10);
  f.next[1] = Reading("/dev/nvidia1", 80, 300);
  f.watch->SampleNow();
  f.now += std::chrono::seconds(10);
  f.next[1] = Reading("/dev/nvidia1", 100, 300);
  std::optional<wire::GpuUsage> u = f.watch->Finish(4);  // Samples once more
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(f.sampler->calls, 2);
  EXPECT_EQ(u->samples(), 2u);
  EXPECT_DOUBLE_EQ(u->util_ave(), 90.0);
  EXPECT_EQ(u->util_max(), 100u);
  EXPECT_DOUBLE_EQ(u->energy_j(), 300.0 * 20);
  EXPECT_FALSE(f.watch->Current(4).has_value());
}

TEST(GpuWatchTest, AHealthEventNamesTheGpuAndTheJobsHoldingIt) {
  WatchFixture f;
  f.watch->Watch(4, {1});
  f.watch->Watch(5, {0});
  f.next[1].events.push_back({GpuEventKind::kXid, 79});
  f.watch->SampleNow();
  ASSERT_EQ(f.health.size(), 1u);
  EXPECT_EQ(f.health[0].index, 1u);
  EXPECT_EQ(f.health[0].jobs, std::vector<uint32_t>{4});
  EXPECT_EQ(GpuHealthReason(f.health[0]), "GPU 1 (/dev/nvidia1): XID 79");
  EXPECT_TRUE(f.watch->TakeHealthHit(4));
  EXPECT_FALSE(f.watch->TakeHealthHit(4)) << "taken once";
  EXPECT_FALSE(f.watch->TakeHealthHit(5));
  f.watch->SampleNow();
  EXPECT_EQ(f.health.size(), 1u);
}

TEST(GpuWatchTest, AStepIsMeasuredApartFromItsJobAndNamesItsJobInEvents) {
  WatchFixture f;
  f.watch->Watch(JobWatchKey(4), {0, 1});
  f.watch->Watch(StepWatchKey(4, 0), {1});
  EXPECT_NE(JobWatchKey(4), StepWatchKey(4, 0));
  EXPECT_EQ(JobOfWatchKey(StepWatchKey(4, 0)), 4u);
  f.now += std::chrono::seconds(5);
  f.next[0] = Reading("/dev/nvidia0", 20, 100);
  f.next[1] = Reading("/dev/nvidia1", 60, 100);
  f.next[1].events.push_back({GpuEventKind::kDoubleBitEcc, 0});
  f.watch->SampleNow();
  EXPECT_EQ(f.watch->Current(JobWatchKey(4))->util_max(), 80u);
  EXPECT_EQ(f.watch->Current(StepWatchKey(4, 0))->util_max(), 60u);
  ASSERT_EQ(f.health.size(), 1u);
  EXPECT_EQ(f.health[0].jobs, std::vector<uint32_t>{4}) << "one job, however many watches";
  EXPECT_TRUE(f.watch->TakeHealthHit(StepWatchKey(4, 0)));
  f.watch->Forget(StepWatchKey(4, 0));
  EXPECT_FALSE(f.watch->Current(StepWatchKey(4, 0)).has_value());
  EXPECT_EQ(f.sampler->calls, 1) << "Forget takes no sample";
}

TEST(GpuWatchTest, AFailingSamplerMeasuresNothingAndRecovers) {
  WatchFixture f;
  f.watch->Watch(4, {0});
  f.sampler->fail = true;
  f.watch->SampleNow();
  EXPECT_EQ(f.watch->Current(4)->samples(), 0u);
  f.sampler->fail = false;
  f.watch->SampleNow();
  EXPECT_EQ(f.watch->Current(4)->samples(), 1u);
}

TEST(GpuWatchTest, ThreadSamplesEveryIntervalAndStops) {
  std::vector<GpuReading> next{Reading("/dev/nvidia0", 50, 100)};
  auto s = std::make_unique<ScriptedSampler>(&next);
  ScriptedSampler* sampler = s.get();
  GpuWatch watch(std::move(s), {{0, "a100", "/dev/nvidia0"}}, std::chrono::seconds(1),
                 [](const GpuHealthEvent&) {});
  watch.Watch(1, {0});
  watch.Start();
  for (int i = 0; i < 50 && watch.Current(1)->samples() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  watch.Stop();
  const int calls = sampler->calls;
  EXPECT_GE(calls, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(sampler->calls, calls) << "no sample after Stop";
}

TEST(GpuWatchTest, JobOfProcessReadsTheJobFromTheCgroupPath) {
  // This process is in no job's cgroup (the test runs outside rotad).
  EXPECT_FALSE(JobOfProcess(getpid()).has_value());
  EXPECT_FALSE(JobOfProcess(0x7ffffff0).has_value());
}

}  // namespace
}  // namespace rota::noded
