// NvmlProvider through its real dlopen path, against the fake libraries that
// testdata/fake_nvml.cc builds (their paths come from CMake).

#include "noded/gpu/discovery/nvml_provider.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

NvmlProviderOptions FakeOptions(const std::string& library, const std::string& mig_minors) {
  NvmlProviderOptions options;
  options.library_path = library;
  options.mig_minors_path = mig_minors;
  return options;
}

// nvmlInit_v2 calls of the fake library still waiting for nvmlShutdown.
int OpenSessions(const char* library) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return -1;
  auto sessions = reinterpret_cast<int (*)()>(dlsym(handle, "FakeNvmlOpenSessions"));
  int n = sessions != nullptr ? sessions() : -1;
  dlclose(handle);
  return n;
}

TEST(GpuNvmlProviderTest, ReportsGpusAndMigInstancesOfTheFakeLibrary) {
  testing::TempDir dir;
  std::string minors = dir.Write("mig-minors",
                                 "config 1\nmonitor 2\n"
                                 "gpu1/gi1/access 10\ngpu1/gi1/ci0/access 11\n"
                                 "gpu1/gi2/access 20\ngpu1/gi2/ci0/access 21\n");
  NvmlProvider provider(FakeOptions(FAKE_NVML_LIBRARY, minors));
  EXPECT_EQ(provider.Name(), "nvml");
  auto gpus = provider.Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  // GPU 0 whole; GPU 1 is in MIG mode, so its two instances stand for it.
  ASSERT_EQ(gpus->size(), 3u);

  const DiscoveredGpu& whole = (*gpus)[0];
  EXPECT_EQ(whole.index, 0u);
  EXPECT_EQ(whole.type, "a100-sxm4-80gb");
  EXPECT_EQ(whole.minor, 0u);
  EXPECT_EQ(whole.device_file, "/dev/nvidia0");
  EXPECT_EQ(whole.pci_bus_id, "00000000:07:00.0");
  EXPECT_EQ(whole.cpus, (std::vector<uint32_t>{0, 1, 2, 3, 64}));
  EXPECT_EQ(whole.uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000000");
  EXPECT_FALSE(whole.is_mig());

  const DiscoveredGpu& mig_a = (*gpus)[1];
  EXPECT_EQ(mig_a.index, 1u);
  EXPECT_EQ(mig_a.type, "1g.10gb");
  EXPECT_EQ(mig_a.minor, 1u);
  EXPECT_EQ(mig_a.device_file, "/dev/nvidia-caps/nvidia-cap11");
  EXPECT_EQ(mig_a.parent_device_file, "/dev/nvidia1");
  EXPECT_EQ(mig_a.pci_bus_id, "00000000:0B:00.0");
  EXPECT_EQ(mig_a.cpus, (std::vector<uint32_t>{4, 5, 6, 7}));
  EXPECT_EQ(mig_a.uuid, "MIG-11111111-2222-3333-4444-555555555555");
  EXPECT_TRUE(mig_a.is_mig());

  const DiscoveredGpu& mig_b = (*gpus)[2];
  EXPECT_EQ(mig_b.index, 2u);
  EXPECT_EQ(mig_b.device_file, "/dev/nvidia-caps/nvidia-cap21");
  EXPECT_EQ(mig_b.uuid, "MIG-66666666-7777-8888-9999-000000000000");

  EXPECT_EQ(OpenSessions(FAKE_NVML_LIBRARY), 0) << "nvmlShutdown was not called";
}

TEST(GpuNvmlProviderTest, MigInstancesWithoutCapabilityListUseTheParentFile) {
  NvmlProvider provider(FakeOptions(FAKE_NVML_LIBRARY, "/nonexistent/mig-minors"));
  auto gpus = provider.Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 3u);
  EXPECT_EQ((*gpus)[1].device_file, "/dev/nvidia1");
  EXPECT_EQ((*gpus)[1].parent_device_file, "/dev/nvidia1");
}

TEST(GpuNvmlProviderTest, MissingLibraryIsAnError) {
  NvmlProvider provider(FakeOptions("/nonexistent/libnvidia-ml.so.1", ""));
  auto gpus = provider.Discover();
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().code(), StatusCode::kNotFound);
  EXPECT_NE(gpus.status().message().find("NVML: /nonexistent/libnvidia-ml.so.1 not found"),
            std::string::npos)
      << gpus.status().message();
  EXPECT_NE(gpus.status().message().find("AutoDetect=nvml"), std::string::npos);
}

TEST(GpuNvmlProviderTest, MissingSymbolIsAnError) {
  NvmlProvider provider(FakeOptions(FAKE_NVML_WITHOUT_AFFINITY_LIBRARY, ""));
  auto gpus = provider.Discover();
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(gpus.status().message().find("has no symbol nvmlDeviceGetCpuAffinity"),
            std::string::npos)
      << gpus.status().message();
}

TEST(GpuNvmlProviderTest, InitFailureIsAnErrorWithNvmlsWords) {
  NvmlProvider provider(FakeOptions(FAKE_NVML_INIT_FAILS_LIBRARY, ""));
  auto gpus = provider.Discover();
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(gpus.status().message(), "NVML: nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)");
}

TEST(GpuNvmlProviderTest, RealLibraryAbsentOrPresentNeverCrashes) {
  // On a host without NVIDIA's driver this is the "not found" path; with one,
  // real GPUs (or none). Either way an answer, not a crash.
  NvmlProvider provider;
  auto gpus = provider.Discover();
  if (!gpus.ok()) {
    EXPECT_FALSE(gpus.status().message().empty());
  }
}

}  // namespace
}  // namespace rota::noded
