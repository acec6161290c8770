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

TEST(GpuWatchTest, AJobIdleForThePeriodIsToldOnceAndAgainWhenBusy) {
  WatchFixture f;
  std::vector<GpuIdleChange> changes;
  f.watch->OnIdle([&](const GpuIdleChange& c) { changes.push_back(c); });
  f.watch->Watch(JobWatchKey(4), {0, 1}, GpuIdleRule{5, std::chrono::seconds(10)});
  f.watch->Watch(JobWatchKey(5), {0});  // No rule: never told
  auto sample = [&](uint32_t util0, uint32_t util1) {
    f.now += std::chrono::seconds(4);
    f.next[0] = Reading("/dev/nvidia0", util0, 100);
    f.next[1] = Reading("/dev/nvidia1", util1, 100);
    f.watch->SampleNow();
  };
  sample(2, 6);  // Mean 4%: idle from here
  sample(0, 9);  // 4.5%
  EXPECT_TRUE(changes.empty());
  sample(3, 0);  // 8 s
  EXPECT_TRUE(changes.empty()) << "idle for 8 s of 10";
  sample(1, 1);  // 12 s: flagged
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].key, JobWatchKey(4));
  EXPECT_TRUE(changes[0].idle);
  EXPECT_DOUBLE_EQ(changes[0].mean_util_pct, (4.0 + 4.5 + 1.5 + 1.0) / 4);
  sample(0, 0);
  EXPECT_EQ(changes.size(), 1u) << "told once";
  sample(50, 0);  // 25%: busy again
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_FALSE(changes[1].idle);
  sample(0, 0);  // Idle again, the period starts over
  sample(0, 0);
  EXPECT_EQ(changes.size(), 2u);
}

// After a restart rotad cannot know what the controller was told: the first
// busy sample of a watch taken up again is told, once.
TEST(GpuWatchTest, AWatchTakenUpAgainTellsItsFirstBusySample) {
  WatchFixture f;
  std::vector<GpuIdleChange> changes;
  f.watch->OnIdle([&](const GpuIdleChange& c) { changes.push_back(c); });
  const GpuIdleRule rule{5, std::chrono::seconds(10)};
  f.watch->Watch(ShareWatchKey(4), {0}, rule, /*maybe_told_idle=*/true);
  f.watch->Watch(JobWatchKey(5), {1}, rule);
  for (uint32_t util : {0u, 60u, 70u}) {
    f.now += std::chrono::seconds(4);
    f.next[0] = Reading("/dev/nvidia0", util, 100);
    f.next[1] = Reading("/dev/nvidia1", util, 100);
    f.watch->SampleNow();
  }
  ASSERT_EQ(changes.size(), 1u) << "told once, and only for the watch taken up again";
  EXPECT_EQ(changes[0].key, ShareWatchKey(4));
  EXPECT_FALSE(changes[0].idle);
  EXPECT_DOUBLE_EQ(changes[0].mean_util_pct, 60);
  EXPECT_TRUE(IsShareWatchKey(changes[0].key));
  EXPECT_FALSE(IsShareWatchKey(StepWatchKey(4, 0)));
  EXPECT_EQ(JobOfWatchKey(changes[0].key), 4u);
}

TEST(GpuWatchTest, AShortDipDoesNotFlagAJob) {
  WatchFixture f;
  std::vector<GpuIdleChange> changes;
  f.watch->OnIdle([&](const GpuIdleChange& c) { changes.push_back(c); });
  f.watch->Watch(JobWatchKey(4), {0}, GpuIdleRule{5, std::chrono::seconds(10)});
  for (uint32_t util : {0u, 0u, 90u, 0u, 0u, 90u, 0u}) {
    f.now += std::chrono::seconds(4);
    f.next[0] = Reading("/dev/nvidia0", util, 100);
    f.watch->SampleNow();
  }
  EXPECT_TRUE(changes.empty());
}

TEST(GpuWatchTest, ALastingConditionIsToldWhenItAppearsNotAtEverySample) {
  WatchFixture f;
  auto lost_gpu1 = [&] { f.next[1].events = {{GpuEventKind::kFallenOffBus, 0}}; };
  lost_gpu1();
  f.watch->SampleNow();
  lost_gpu1();
  f.watch->SampleNow();
  ASSERT_EQ(f.health.size(), 1u) << "told once while it stands";
  f.watch->SampleNow();  // Back on the bus (no event this sample)
  lost_gpu1();
  f.watch->SampleNow();
  EXPECT_EQ(f.health.size(), 2u) << "told again when it comes back";
  // XIDs are events, each told.
  f.next[1].events = {{GpuEventKind::kXid, 48}};
  f.watch->SampleNow();
  f.next[1].events = {{GpuEventKind::kXid, 48}};
  f.watch->SampleNow();
  EXPECT_EQ(f.health.size(), 4u);
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
