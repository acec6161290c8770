// NvmlSampler through its real dlopen path, against testdata/fake_nvml.cc.

#include "noded/gpu/discovery/nvml_sampler.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace rota::noded {
namespace {

// The fake library, kept loaded by the test so its state outlives samplers.
class FakeNvml {
 public:
  FakeNvml() : handle_(dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {}
  ~FakeNvml() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  template <typename Fn>
  Fn Get(const char* name) {
    return reinterpret_cast<Fn>(dlsym(handle_, name));
  }
  int OpenSessions() { return Get<int (*)()>("FakeNvmlOpenSessions")(); }
  int OpenEventSets() { return Get<int (*)()>("FakeNvmlOpenEventSets")(); }

 private:
  void* handle_;
};

TEST(NvmlSamplerTest, ReadsEachGpuWholeWithItsFiguresAndProcesses) {
  FakeNvml fake;
  {
    NvmlSampler sampler(FAKE_NVML_LIBRARY);
    EXPECT_EQ(sampler.Name(), "nvml");
    Result<std::vector<GpuReading>> readings = sampler.Sample();
    ASSERT_TRUE(readings.ok()) << readings.status().message();
    // GPU 1 is in MIG mode and is still read as one GPU.
    ASSERT_EQ(readings->size(), 2u);
    const GpuReading& g0 = (*readings)[0];
    EXPECT_EQ(g0.device_file, "/dev/nvidia0");
    EXPECT_EQ(g0.util_pct, 10u);
    EXPECT_EQ(g0.mem_used_bytes, 1ULL << 30);
    EXPECT_EQ(g0.mem_total_bytes, 80ULL << 30);
    EXPECT_EQ(g0.power_mw, 100000u);
    EXPECT_EQ(g0.temperature_c, 30u);
    EXPECT_EQ(g0.pids, std::vector<pid_t>{1000});
    EXPECT_TRUE(g0.events.empty());
    const GpuReading& g1 = (*readings)[1];
    EXPECT_EQ(g1.device_file, "/dev/nvidia1");
    EXPECT_EQ(g1.util_pct, 50u);
    EXPECT_EQ(g1.power_mw, 200000u);
    // The session and the event set stay open between samples.
    EXPECT_EQ(fake.OpenSessions(), 1);
    EXPECT_EQ(fake.OpenEventSets(), 1);
    fake.Get<void (*)(int, unsigned int)>("FakeNvmlSetUtilization")(0, 97);
    readings = sampler.Sample();
    ASSERT_TRUE(readings.ok());
    EXPECT_EQ((*readings)[0].util_pct, 97u);
  }
  EXPECT_EQ(fake.OpenSessions(), 0);
  EXPECT_EQ(fake.OpenEventSets(), 0);
}

TEST(NvmlSamplerTest, ReportsXidsOnceAndALostGpu) {
  FakeNvml fake;
  NvmlSampler sampler(FAKE_NVML_LIBRARY);
  ASSERT_TRUE(sampler.Sample().ok());  // Registers for events
  fake.Get<void (*)(int, unsigned long long)>("FakeNvmlQueueXid")(1, 79);
  Result<std::vector<GpuReading>> readings = sampler.Sample();
  ASSERT_TRUE(readings.ok());
  EXPECT_TRUE((*readings)[0].events.empty());
  EXPECT_EQ((*readings)[1].events, (std::vector<GpuEvent>{{GpuEventKind::kXid, 79}}));
  readings = sampler.Sample();
  ASSERT_TRUE(readings.ok());
  EXPECT_TRUE((*readings)[1].events.empty()) << "an event is reported once";

  fake.Get<void (*)(int)>("FakeNvmlLoseGpu")(0);
  readings = sampler.Sample();
  ASSERT_TRUE(readings.ok());
  EXPECT_EQ((*readings)[0].events, (std::vector<GpuEvent>{{GpuEventKind::kFallenOffBus, 0}}));
  EXPECT_EQ((*readings)[0].util_pct, 0u);
  EXPECT_EQ(GpuEventText((*readings)[0].events[0]), "fallen off the bus");
}

TEST(NvmlSamplerTest, AMissingLibraryIsAnError) {
  NvmlSampler sampler("/nonexistent/libnvidia-ml.so.1");
  Result<std::vector<GpuReading>> readings = sampler.Sample();
  ASSERT_FALSE(readings.ok());
  EXPECT_NE(readings.status().message().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

}  // namespace
}  // namespace rota::noded
