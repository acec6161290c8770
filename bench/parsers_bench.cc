// Speed of the parsers on the paths that scale: big hostlists (a 10,000-node
// cluster's partitions) and a whole configuration load.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/hostlist.h"
#include "conf/config_loader.h"

namespace {

void BM_ExpandHostlist100k(benchmark::State& state) {
  for (auto _ : state) {
    auto hosts = rota::ExpandHostlist("n[0-99999]");
    benchmark::DoNotOptimize(hosts);
  }
  state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_ExpandHostlist100k)->Unit(benchmark::kMillisecond);

void BM_CompressHostlist100kSortedUnique(benchmark::State& state) {
  std::vector<std::string> hosts = rota::ExpandHostlist("n[0-99999]").value();
  std::vector<std::string> shuffled;
  // A deterministic interleaving so the sort has work to do.
  for (size_t i = 0; i < hosts.size(); i += 2) shuffled.push_back(hosts[i]);
  for (size_t i = 1; i < hosts.size(); i += 2) shuffled.push_back(hosts[i]);
  for (auto _ : state) {
    std::string expr = rota::CompressHostlist(shuffled, rota::HostlistOrder::kSortedUnique);
    benchmark::DoNotOptimize(expr);
  }
  state.SetItemsProcessed(state.iterations() * shuffled.size());
}
BENCHMARK(BM_CompressHostlist100kSortedUnique)->Unit(benchmark::kMillisecond);

void BM_CountHostlistHuge(benchmark::State& state) {
  for (auto _ : state) {
    auto n = rota::CountHostlist("n[0-999999999]");
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_CountHostlistHuge);

// The example as the daemons load it (every file) and as a command does (slurm.conf alone).
void LoadGpuClusterExample(benchmark::State& state, rota::conf::ConfigScope scope) {
  std::string path = (std::filesystem::path(ROTA_SOURCE_DIR).parent_path() / "shared" / "examples" /
                      "gpu-cluster" / "slurm.conf")
                         .string();
  for (auto _ : state) {
    rota::conf::Diagnostics diags;
    auto config = rota::conf::LoadClusterConfig(path, diags, scope);
    if (!config.ok()) state.SkipWithError("example did not load");
    benchmark::DoNotOptimize(config);
  }
}
void BM_LoadGpuClusterExample(benchmark::State& state) {
  LoadGpuClusterExample(state, rota::conf::ConfigScope::kCluster);
}
BENCHMARK(BM_LoadGpuClusterExample)->Unit(benchmark::kMicrosecond);
void BM_LoadGpuClusterExampleForACommand(benchmark::State& state) {
  LoadGpuClusterExample(state, rota::conf::ConfigScope::kSlurmConfOnly);
}
BENCHMARK(BM_LoadGpuClusterExampleForACommand)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
