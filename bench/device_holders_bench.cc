// The check after every GPU job that nothing still holds the job's GPUs
// (noded/gpu/device_holders): one walk of every descriptor of every process on
// the host, for one device and for a job's eight.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "noded/gpu/device_holders.h"

namespace {

std::vector<std::string> FakeGpus(int count) {
  std::vector<std::string> paths;
  for (int i = 0; i < count; ++i) paths.push_back("/dev/nvidia-bench" + std::to_string(i));
  return paths;
}

void BM_ProcessesHoldingOneGpu(benchmark::State& state) {
  const std::vector<std::string> paths = FakeGpus(1);
  for (auto _ : state) benchmark::DoNotOptimize(rota::noded::ProcessesHoldingAny(paths));
}
BENCHMARK(BM_ProcessesHoldingOneGpu)->Unit(benchmark::kMicrosecond);

void BM_ProcessesHoldingEightGpus(benchmark::State& state) {
  const std::vector<std::string> paths = FakeGpus(8);
  for (auto _ : state) benchmark::DoNotOptimize(rota::noded::ProcessesHoldingAny(paths));
}
BENCHMARK(BM_ProcessesHoldingEightGpus)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
