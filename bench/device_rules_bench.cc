// What ConstrainDevices costs rotad per job launch and per task cage: the
// denied devices of a node with eight GPUs (noded/gpu/gres_device_files), i.e.
// one stat(2) per GRES file of the host and per granted file. Eight real
// character devices of /dev stand in for the GPUs, so no root is needed.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "conf/config_loader.h"
#include "noded/gpu/gpu_allocator.h"
#include "noded/gpu/gres_device_files.h"

namespace {

namespace fs = std::filesystem;
using rota::noded::GpuDevice;

constexpr const char* kFiles[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
                                  "/dev/urandom", "/dev/tty",  "/dev/ptmx", "/dev/fuse"};

// A one-node cluster whose gres.conf gives the node the eight files as GPUs.
std::shared_ptr<const rota::conf::ClusterConfig> EightGpuNode() {
  const fs::path dir =
      fs::temp_directory_path() / ("device-rules-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "slurm.conf") << "ClusterName=b\nSlurmctldHost=c\nGresTypes=gpu\n"
                                       "NodeName=g1 CPUs=8 Gres=gpu:8\nPartitionName=p Nodes=g1\n";
  std::ofstream gres(dir / "gres.conf");
  for (const char* file : kFiles) gres << "NodeName=g1 Name=gpu File=" << file << "\n";
  gres.close();
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig((dir / "slurm.conf").string(), diags);
  fs::remove_all(dir);
  return config.ok() ? *config : nullptr;
}

void DeniedFor(benchmark::State& state, size_t held) {
  auto config = EightGpuNode();
  if (config == nullptr) {
    state.SkipWithError("configuration did not load");
    return;
  }
  const std::vector<GpuDevice> inventory = rota::noded::GpuAllocator::InventoryOf(*config, "g1");
  const std::vector<GpuDevice> granted(inventory.begin(), inventory.begin() + held);
  for (auto _ : state) {
    benchmark::DoNotOptimize(rota::noded::DeniedDevicesFor(*config, "g1", inventory, granted));
  }
}

void BM_DeniedDevicesOneGpuOfEight(benchmark::State& state) { DeniedFor(state, 1); }
BENCHMARK(BM_DeniedDevicesOneGpuOfEight)->Unit(benchmark::kMicrosecond);

void BM_DeniedDevicesEightGpusOfEight(benchmark::State& state) { DeniedFor(state, 8); }
BENCHMARK(BM_DeniedDevicesEightGpusOfEight)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
