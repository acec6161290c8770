// Speed of one priority/multifactor recomputation over 100,000 pending jobs
// (the target): for each job, read its record into the factors' inputs
// and compute the weighted sum, as the controller's tick does every
// PriorityCalcPeriod. Cluster: 1,000 nodes of 64 CPUs and 8 GPUs, two
// partitions; jobs ask for 1-4 nodes, 1-64 CPUs, 0-8 GPUs, some with --nice.
#include <benchmark/benchmark.h>

#include <random>

#include "ctld/core/multifactor.h"
#include "sched/fairshare_tree.h"
#include "sched/usage_ledger.h"

namespace {

using rota::ctld::MakePriorityCluster;
using rota::ctld::MakePriorityJob;
using rota::ctld::MakePrioritySettings;
using rota::sched::ComputePriority;

constexpr int64_t kNow = 1'800'000'000;

rota::conf::ClusterConfig MakeConfig() {
  rota::conf::ClusterConfig c;
  c.settings.priority_type = "priority/multifactor";
  c.settings.priority_weights.age = 1000;
  c.settings.priority_weights.fairshare = 10000;
  c.settings.priority_weights.job_size = 1000;
  c.settings.priority_weights.partition = 1000;
  c.settings.priority_weights.qos = 2000;
  c.settings.priority_weights.tres["gres/gpu"] = 1000;
  c.settings.priority_weights.tres["cpu"] = 100;
  for (int i = 0; i < 1000; ++i) {
    rota::conf::NodeConfig& n = c.nodes.emplace_back();
    n.name = "n" + std::to_string(i);
    n.cpus = 64;
    rota::GresSpec& g = n.gres.emplace_back();
    g.name = "gpu";
    g.type = "a100";
    g.count = 8;
  }
  for (const char* name : {"batch", "short"}) {
    rota::conf::PartitionConfig& p = c.partitions.emplace_back();
    p.name = name;
    p.priority_job_factor = p.name == "batch" ? 1 : 100;
  }
  return c;
}

std::vector<rota::wire::JobRecord> MakeJobs(size_t count) {
  std::mt19937 rng(7);
  std::vector<rota::wire::JobRecord> jobs(count);
  for (size_t i = 0; i < count; ++i) {
    rota::wire::JobRecord& j = jobs[i];
    j.set_job_id(static_cast<uint32_t>(i + 1));
    j.set_state(rota::wire::JOB_STATE_PENDING);
    j.set_eligible_time(kNow - static_cast<int64_t>(rng() % (14 * 86400)));
    j.set_req_nodes(1 + rng() % 4);
    j.set_alloc_cpus(1 + rng() % 64);
    rota::wire::JobSpec* s = j.mutable_spec();
    s->set_partition(rng() % 10 == 0 ? "short" : "batch");
    if (rng() % 2 == 0) s->set_gpus_per_node(std::to_string(rng() % 9));
    if (rng() % 20 == 0) s->set_nice(static_cast<int32_t>(rng() % 500));
    j.set_priority(1);
  }
  return jobs;
}

void BM_RecomputePending(benchmark::State& state) {
  const rota::conf::ClusterConfig config = MakeConfig();
  std::vector<rota::wire::JobRecord> jobs = MakeJobs(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    const auto cluster = MakePriorityCluster(config);
    const auto settings = MakePrioritySettings(config);
    size_t changed = 0;
    for (rota::wire::JobRecord& j : jobs) {
      uint32_t p = ComputePriority(MakePriorityJob(j, config), cluster, settings, kNow).priority;
      if (p != j.priority()) {
        j.set_priority(p);
        ++changed;
      }
    }
    benchmark::DoNotOptimize(changed);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_RecomputePending)->Arg(100'000)->Unit(benchmark::kMillisecond);

// The same recomputation with fair-share, as the controller's tick does it
// now: accrue the running jobs' usage (10,000 of them), build the share tree
// of 1,000 user associations in 50 accounts, then look each pending job's
// factor up by its association.
void BM_RecomputePendingWithFairshare(benchmark::State& state) {
  const rota::conf::ClusterConfig config = MakeConfig();
  std::vector<rota::wire::JobRecord> jobs = MakeJobs(static_cast<size_t>(state.range(0)));
  constexpr int kUsers = 1000, kAccounts = 50, kRunning = 10'000;
  std::mt19937 rng(11);
  for (rota::wire::JobRecord& j : jobs) {
    int user = static_cast<int>(rng() % kUsers);
    j.mutable_spec()->set_user("user" + std::to_string(user));
    j.mutable_spec()->set_account("acct" + std::to_string(user % kAccounts));
  }
  std::vector<rota::sched::UsageCharge> running(kRunning);
  for (rota::sched::UsageCharge& c : running) {
    int user = static_cast<int>(rng() % kUsers);
    c.user = "user" + std::to_string(user);
    c.lineage = {"acct" + std::to_string(user % kAccounts), "root"};
    c.rate = 1 + rng() % 600;
    c.start = kNow - 86400;
  }
  rota::sched::UsageLedger ledger;
  int64_t now = kNow;
  for (auto _ : state) {
    now += 300;
    ledger.Advance(now, 7 * 86400, running);
    std::vector<rota::sched::ShareNode> nodes;
    nodes.reserve(kUsers + kAccounts + 1);
    for (const auto& [key, usage] : ledger.entries()) {
      rota::sched::ShareNode& n = nodes.emplace_back();
      n.account = key.first;
      n.user = key.second;
      n.raw_usage = usage;
    }
    rota::sched::ShareTree tree = rota::sched::ShareTree::Compute(std::move(nodes), true);
    const auto cluster = MakePriorityCluster(config);
    const auto settings = MakePrioritySettings(config);
    size_t changed = 0;
    for (rota::wire::JobRecord& j : jobs) {
      rota::sched::PriorityJob in = MakePriorityJob(j, config);
      in.fairshare = tree.Factor(j.spec().account(), j.spec().user());
      uint32_t p = ComputePriority(in, cluster, settings, now).priority;
      if (p != j.priority()) {
        j.set_priority(p);
        ++changed;
      }
    }
    benchmark::DoNotOptimize(changed);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_RecomputePendingWithFairshare)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
