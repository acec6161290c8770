// What one GPU sample costs rotad (noded/gpu/gpu_watch.h), on an eight-GPU
// node: the bookkeeping of a sample with jobs watched (readings given), the
// fake inventory's scripted readings (files read each time), and NVML's
// calls through the stand-in libnvidia-ml (dlopen'd; a real driver's own
// cost is not in it: no GPU here).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "noded/gpu/discovery/fake_gpu_sampler.h"
#include "noded/gpu/discovery/nvml_sampler.h"
#include "noded/gpu/gpu_watch.h"

namespace {

using rota::noded::GpuDevice;
using rota::noded::GpuReading;

constexpr int kGpus = 8;

std::string File(int g) { return "/dev/nvidia" + std::to_string(g); }

class FixedSampler : public rota::noded::GpuSampler {
 public:
  std::string Name() const override { return "fixed"; }
  rota::Result<std::vector<GpuReading>> Sample() override {
    std::vector<GpuReading> out(kGpus);
    for (int g = 0; g < kGpus; ++g) {
      out[g].device_file = File(g);
      out[g].util_pct = 50;
      out[g].mem_used_bytes = 10ULL << 30;
      out[g].mem_total_bytes = 80ULL << 30;
      out[g].power_mw = 300000;
      out[g].pids = {1000 + g};
    }
    return out;
  }
};

// Jobs of one GPU each on all eight GPUs, plus one srun step each, idle rules on.
void BM_WatchBookkeeping(benchmark::State& state) {
  std::vector<GpuDevice> devices;
  for (int g = 0; g < kGpus; ++g) devices.emplace_back(g, "a100", File(g));
  rota::noded::GpuWatch watch(
      std::make_unique<FixedSampler>(), devices, std::chrono::seconds(0),
      [](const rota::noded::GpuHealthEvent&) {}, [](pid_t) { return std::nullopt; });
  for (uint32_t g = 0; g < kGpus; ++g) {
    watch.Watch(rota::noded::JobWatchKey(g + 1), {g}, rota::noded::GpuIdleRule{});
    watch.Watch(rota::noded::StepWatchKey(g + 1, 0), {g});
  }
  for (auto _ : state) watch.SampleNow();
}
BENCHMARK(BM_WatchBookkeeping);

void BM_FakeScriptedReadings(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpu-sample-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string inventory;
  for (int g = 0; g < kGpus; ++g) {
    const std::string script = (dir / ("gpu" + std::to_string(g))).string();
    std::ofstream(script) << "0 Util=5 MemUsed=1G MemTotal=80G Power=60\n10 Util=90\n";
    inventory += "Type=a100 File=" + File(g) + " Metrics=" + script + "\n";
  }
  std::ofstream((dir / "inventory").string()) << inventory;
  rota::noded::FakeGpuSampler sampler((dir / "inventory").string());
  for (auto _ : state) benchmark::DoNotOptimize(sampler.Sample());
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_FakeScriptedReadings);

#ifdef FAKE_NVML_LIBRARY
// The stand-in library has two GPUs; the figure is per sample of both.
void BM_NvmlStandInTwoGpus(benchmark::State& state) {
  rota::noded::NvmlSampler sampler(FAKE_NVML_LIBRARY);
  if (!sampler.Sample().ok()) {
    state.SkipWithError("stand-in NVML did not load");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(sampler.Sample());
}
BENCHMARK(BM_NvmlStandInTwoGpus);
#endif

}  // namespace

BENCHMARK_MAIN();
