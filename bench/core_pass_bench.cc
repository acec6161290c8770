// Speed of the controller core's scheduling pass, through its public API (so
// that the same file measures any version of the core): 1,000 GPU nodes of 64
// cores, 512 GB and 8 A100, nine in ten GPUs held by running jobs, and 10,000
// pending jobs of 100 users asking for 1, 4 or 8 GPUs on one node, or 4 nodes
// of 8 GPUs. The main pass tries the queue until the partition is blocked;
// backfill (bf_interval=1, bf_window of a day, bf_max_job_test 500 by
// default) shapes every pending job and plans them in order. Each iteration
// is one Tick a second after the last, so both passes run. Also the cost of
// the GPU shares a heartbeat's answer lists, and of a heartbeat itself.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ctld/core/controller_core.h"
#include "testing/config_files.h"

namespace {

using rota::ctld::Caller;
using rota::ctld::ControllerCore;
using rota::ctld::Effects;

constexpr int64_t kT0 = 1'800'000'000;
constexpr int kNodes = 1000;

struct Cluster {
  rota::testing::TempDir dir;
  std::unique_ptr<ControllerCore> core;
  int64_t now = kT0;
};

void Submit(Cluster& c, uint32_t uid, const std::string& gpus, uint32_t nodes, int64_t limit_s) {
  rota::wire::SubmitJobRequest req;
  rota::wire::JobSpec& s = *req.mutable_spec();
  s.set_name("job");
  s.set_min_nodes(nodes);
  s.set_gpus_per_node(gpus);
  s.set_cpus_per_gpu(4);
  s.set_time_limit_s(limit_s);
  s.set_script("#!/bin/sh\ntrue\n");
  const std::string user = "u" + std::to_string(uid);
  Caller who{uid, uid, user, user, false};
  Effects e;
  if (!c.core->Submit(req, who, c.now, e).ok()) std::abort();
}

// `wide`: one running job in ten spans two nodes with 8 GPUs on each.
std::unique_ptr<Cluster> MakeCluster(size_t pending, bool wide = false) {
  auto c = std::make_unique<Cluster>();
  std::string slurm =
      "ClusterName=bench\nSlurmctldHost=h\nGresTypes=gpu\nSelectType=select/cons_tres\n"
      "SchedulerType=sched/backfill\nSchedulerParameters=bf_interval=1,bf_window=1440\n"
      "MaxJobCount=200000\n"
      "NodeName=n[0-" +
      std::to_string(kNodes - 1) +
      "] CPUs=64 Sockets=2 CoresPerSocket=32 "
      "ThreadsPerCore=1 RealMemory=512000 Gres=gpu:a100:8\n"
      "PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED\n";
  std::string gres =
      "NodeName=n[0-" + std::to_string(kNodes - 1) + "] Name=gpu Type=a100 File=/dev/nvidia[0-7]\n";
  auto loaded = rota::testing::LoadConfigFiles(c->dir, {slurm, gres});
  if (!loaded.config.ok()) {
    std::fprintf(stderr, "%s\n", loaded.Text().c_str());
    std::abort();
  }
  c->core = std::make_unique<ControllerCore>(*loaded.config);
  for (const auto& node : (*loaded.config)->nodes) {
    Effects e;
    if (!c->core->NodeRegistered(node.name, kT0, c->now, e).ok()) std::abort();
  }
  std::mt19937 rng(7);
  // Running work: one- and two-GPU jobs until nine in ten GPUs are held.
  const int held = kNodes * 8 * 9 / 10;
  for (int gpus = 0; gpus < held;) {
    if (wide && rng() % 10 == 0) {
      Submit(*c, 2000 + rng() % 100, "8", 2, 3600 * (1 + rng() % 24));
      gpus += 16;
      continue;
    }
    const int n = rng() % 2 == 0 ? 1 : 2;
    Submit(*c, 2000 + rng() % 100, std::to_string(n), 1, 3600 * (1 + rng() % 24));
    gpus += n;
  }
  Effects start;
  c->core->Tick(c->now, start);
  // The queue.
  for (size_t i = 0; i < pending; ++i) {
    const uint32_t kind = rng() % 10;
    const std::string gpus = kind < 5 ? "1" : kind < 8 ? "4" : "8";
    Submit(*c, 2000 + rng() % 100, gpus, kind == 9 ? 4 : 1, 3600 * (1 + rng() % 24));
  }
  return c;
}

void BM_SchedulingPass(benchmark::State& state) {
  std::unique_ptr<Cluster> c = MakeCluster(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    c->now += 1;
    Effects e;
    c->core->Tick(c->now, e);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_SchedulingPass)->Arg(10'000)->Unit(benchmark::kMillisecond)->MinTime(2);

// What a heartbeat's answer adds: the jobs whose share of GPUs on the node its
// rotad watches for idleness. Argument 0: the cluster above (no running job
// spans nodes); 1: one running job in ten on two nodes, every heartbeat of a
// node holding a share scanning the job table.
void BM_GpuSharesOn(benchmark::State& state) {
  std::unique_ptr<Cluster> c = MakeCluster(10'000, state.range(0) != 0);
  size_t node = 0;
  size_t listed = 0;
  for (auto _ : state) {
    auto shares = c->core->GpuSharesOn("n" + std::to_string(node++ % kNodes));
    listed += shares.size();
    benchmark::DoNotOptimize(shares);
  }
  state.counters["shares_per_call"] =
      static_cast<double>(listed) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_GpuSharesOn)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// One heartbeat of a node reporting the jobs it holds (the controller
// reconciles them with its own view), over the cluster above.
void BM_NodeHeartbeat(benchmark::State& state) {
  std::unique_ptr<Cluster> c = MakeCluster(10'000);
  std::vector<rota::wire::NodeRegisterRequest> beats(kNodes);
  for (int n = 0; n < kNodes; ++n) {
    beats[n].set_node("n" + std::to_string(n));
    beats[n].set_boot_time(kT0);
    beats[n].set_jobs_reported(true);
  }
  for (const auto& [id, job] : c->core->jobs()) {
    if (job->state() != rota::wire::JOB_STATE_RUNNING) continue;
    for (const std::string& node : job->nodes()) {
      beats[static_cast<size_t>(std::stoi(node.substr(1)))].add_jobs(id);
    }
  }
  size_t n = 0;
  for (auto _ : state) {
    Effects e;
    if (!c->core->NodeRegistered(beats[n++ % kNodes], c->now, e).ok()) std::abort();
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_NodeHeartbeat)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
