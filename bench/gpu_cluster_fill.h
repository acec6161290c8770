#pragma once

// What the scheduling benchmarks share: a GPU cluster 90% full, as a
// long-running cluster's history leaves it, and the three typical requests
// they place (select_bench, backfill_bench).

#include <random>
#include <vector>

#include "sched/allocation.h"
#include "sched/cluster_model.h"
#include "sched/select.h"

namespace rota::bench {

// Takes 90% of the GPUs of the first `nodes` nodes of `model` (8 GPUs each)
// with 1-, 2- and 4-GPU jobs of 8 cores per GPU placed at random nodes
// (seeded: the same cluster every run). `placed(allocation, rng)` sees each.
template <typename OnPlaced>
void FillToNinetyPercent(const sched::ClusterModel& model, std::vector<sched::NodeUsage>& usage,
                         uint32_t nodes, OnPlaced placed) {
  std::mt19937 rng(7);
  const uint64_t target = uint64_t{nodes} * 8 * 9 / 10;
  uint64_t taken = 0;
  uint32_t misses = 0;
  while (taken < target && misses < 1000) {
    sched::Request r;
    r.gpus_per_node = 1u << (rng() % 3);
    r.cpus_per_task = 8 * r.gpus_per_node;
    r.memory = sched::MemoryRule::kPerGpu;
    r.mem_mb = 64000;
    std::vector<uint32_t> one{static_cast<uint32_t>(rng() % nodes)};
    sched::Selection s = sched::Select(model, usage, one, r);
    if (!s.allocation) {
      ++misses;
      continue;
    }
    for (const auto& a : s.allocation->nodes) sched::Take(model, usage[a.node], a);
    placed(*s.allocation, rng);
    taken += r.gpus_per_node;
  }
}

// 0: one GPU and 8 cores; 1: a whole node's 8 GPUs; else 4 nodes x 8 GPUs,
// 8 tasks each with a GPU.
inline sched::Request TypicalRequest(int kind) {
  sched::Request r;
  r.memory = sched::MemoryRule::kPerGpu;
  r.mem_mb = 32000;
  switch (kind) {
    case 0:
      r.gpus_per_node = 1;
      r.cpus_per_task = 8;
      break;
    case 1:
      r.gpus_per_node = 8;
      r.cpus_per_task = 16;
      break;
    default:
      r.nodes = 4;
      r.tasks = 32;
      r.tasks_per_node = 8;
      r.gpus_per_task = 1;
      r.cpus_per_task = 4;
      break;
  }
  return r;
}

}  // namespace rota::bench
