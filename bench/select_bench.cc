// Speed of the resource selection (issue targets: one placement on 10,000
// nodes well under 1 ms; a pass over 10,000 pending jobs under 1 s), on
// clusters of 8-GPU, 2-socket nodes that are 90% full.
#include <benchmark/benchmark.h>

#include <random>

#include "gpu_cluster_fill.h"
#include "sched/failure_memo.h"
#include "sched/select.h"
#include "sched/test_cluster.h"

namespace {

using rota::sched::Allocation;
using rota::sched::ClusterModel;
using rota::sched::NodeUsage;
using rota::sched::Request;
using rota::sched::Select;
using rota::sched::Selection;

struct Cluster {
  ClusterModel model;
  std::vector<NodeUsage> usage;
  std::vector<uint32_t> all;
};

// `nodes` nodes of 2 x 32 cores, 512 GB and 8 A100 (4 per socket) under leaf
// switches of 32; 90% of the GPUs and cores taken by 1-, 2- and 4-GPU jobs.
Cluster MakeCluster(uint32_t nodes, bool topology) {
  Cluster c;
  using rota::sched::testing::AddNode;
  using rota::sched::testing::MakeNode;
  if (topology) {
    uint32_t leaves = (nodes + 31) / 32;
    for (uint32_t l = 0; l < leaves; ++l) {
      c.model.switches.push_back({"leaf" + std::to_string(l), static_cast<int>(leaves), 0});
    }
    c.model.switches.push_back({"spine", -1, 1});
  }
  for (uint32_t i = 0; i < nodes; ++i) {
    auto n = MakeNode("n" + std::to_string(i), 2, 32, 512000, {{"a100", 4, 0}, {"a100", 4, 1}},
                      c.model.gpu_types);
    if (topology) n.leaf = static_cast<int>(i / 32);
    AddNode(c.model, n);
    c.all.push_back(i);
  }
  c.usage = c.model.EmptyUsage();
  rota::bench::FillToNinetyPercent(c.model, c.usage, nodes, [](const Allocation&, auto&) {});
  return c;
}

Request Typical(int kind) { return rota::bench::TypicalRequest(kind); }

void BM_SelectOne(benchmark::State& state) {
  static std::map<std::pair<int64_t, bool>, Cluster> clusters;
  bool topology = state.range(2) != 0;
  auto key = std::make_pair(state.range(0), topology);
  if (!clusters.count(key))
    clusters[key] = MakeCluster(static_cast<uint32_t>(state.range(0)), topology);
  const Cluster& c = clusters[key];
  Request r = Typical(static_cast<int>(state.range(1)));
  size_t fits = 0;
  for (auto _ : state) {
    Selection s = Select(c.model, c.usage, c.all, r);
    fits += s.allocation.has_value();
    benchmark::DoNotOptimize(s);
  }
  state.counters["fits"] = static_cast<double>(fits) / static_cast<double>(state.iterations());
}
// Args: nodes, job kind (0: 1 GPU, 1: 8 GPUs, 2: 4x8 GPUs), topology.
BENCHMARK(BM_SelectOne)
    ->Args({1024, 0, 0})
    ->Args({1024, 1, 0})
    ->Args({1024, 2, 0})
    ->Args({10000, 0, 0})
    ->Args({10000, 1, 0})
    ->Args({10000, 2, 0})
    ->Args({10000, 2, 1})
    ->Unit(benchmark::kMicrosecond);

// A pass that tries every one of 10,000 pending jobs in priority order on a
// 10,000-node cluster that is 90% full (the main pass stops a partition at
// its first misfit; this is the worst case, as backfill meets it), each
// started where it fits; a request equal to one that already failed in the
// pass is not tried again (FailureMemo).
void BM_PassOver10kPending(benchmark::State& state) {
  const Cluster base = MakeCluster(10000, false);
  std::mt19937 rng(11);
  std::vector<Request> queue;
  for (int i = 0; i < 10000; ++i) queue.push_back(Typical(static_cast<int>(rng() % 3)));
  size_t started = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<NodeUsage> usage = base.usage;
    state.ResumeTiming();
    started = 0;
    rota::sched::FailureMemo memo;
    for (const Request& r : queue) {
      if (memo.KnownToFail(r, "all")) continue;
      Selection s = Select(base.model, usage, base.all, r);
      if (!s.allocation) {
        memo.NoteFailure(r, "all");
        continue;
      }
      for (const auto& a : s.allocation->nodes) rota::sched::Take(base.model, usage[a.node], a);
      ++started;
    }
  }
  state.counters["started"] = static_cast<double>(started);
}
BENCHMARK(BM_PassOver10kPending)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
