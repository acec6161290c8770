// Packing a job's script and environment, done for every submission on the
// controller's RPC threads (model/job_payload): its cost per call, and the
// packed size, which is most of what a pending job costs in memory.
#include <benchmark/benchmark.h>

#include <string>

#include "model/job_payload.h"

namespace {

// What a login shell hands sbatch: about 40 variables, 3 KB, and a short script.
rota::wire::JobPayload TypicalPayload() {
  rota::wire::JobPayload p;
  p.set_script("#!/bin/bash\n#SBATCH -N1\nsrun python train.py --epochs 10\n");
  for (int i = 0; i < 40; ++i) {
    p.add_environment("VARIABLE_" + std::to_string(i) + "=/opt/software/pkg" + std::to_string(i) +
                      "/bin:/usr/local/bin:/usr/bin:/bin");
  }
  return p;
}

void BM_PackPayload(benchmark::State& state) {
  const rota::wire::JobPayload p = TypicalPayload();
  size_t packed = 0;
  for (auto _ : state) {
    std::string out = rota::model::PackPayload(p);
    packed = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["packed_bytes"] = static_cast<double>(packed);
  state.counters["raw_bytes"] = static_cast<double>(p.ByteSizeLong());
}
BENCHMARK(BM_PackPayload)->Unit(benchmark::kMicrosecond);

void BM_UnpackPayload(benchmark::State& state) {
  const std::string packed = rota::model::PackPayload(TypicalPayload());
  for (auto _ : state) benchmark::DoNotOptimize(rota::model::UnpackPayload(1, packed));
}
BENCHMARK(BM_UnpackPayload)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
