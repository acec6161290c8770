// Cost of QoS and association limits in a scheduling pass
// (AccountingStorageEnforce=limits): for 100,000 pending jobs, what the pass
// adds per job: the job's TRES as accounting counts them (ReqTRES; formatted
// then parsed, as the hook first did, and counted directly, as it does now)
// and the check against a policy of
// 1,000 users in 100 accounts under 10 parents, with QoS and association
// limits, 10,000 jobs running.
#include <benchmark/benchmark.h>

#include <random>

#include "ctld/core/accounting_records.h"
#include "ctld/core/policy_table.h"
#include "sched/limit_check.h"

namespace {

using rota::ctld::PolicyTable;
using rota::sched::JobDemand;
using rota::sched::LimitUsage;

void Add(rota::wire::PolicyState& s, const std::string& kind, const std::string& name,
         std::map<std::string, std::string> fields) {
  rota::wire::PolicyEntity* e = s.add_entities();
  e->set_kind(kind);
  e->set_name(name);
  for (auto& [k, v] : fields) (*e->mutable_fields())[k] = v;
}

// `minutes`: GrpTRESMins on every account, association and the QoS too
// (never reached: every check runs to the end), and each user also in a
// second account.
std::shared_ptr<const PolicyTable> MakePolicy(bool minutes = false) {
  rota::wire::PolicyState s;
  for (int p = 0; p < 10; ++p) Add(s, "account", "dept" + std::to_string(p), {{"GrpJobs", "5000"}});
  for (int a = 0; a < 100; ++a) {
    std::map<std::string, std::string> fields = {{"Parent", "dept" + std::to_string(a % 10)},
                                                 {"GrpTRES", "cpu=20000,gres/gpu=800"},
                                                 {"MaxJobs", "50"}};
    if (minutes) fields["GrpTRESMins"] = "cpu=100000000,gres/gpu=10000000";
    Add(s, "account", "acct" + std::to_string(a), fields);
  }
  for (int u = 0; u < 1000; ++u) {
    const std::string user = "user" + std::to_string(u);
    Add(s, "user", user, {{"DefaultAccount", "acct" + std::to_string(u % 100)}});
    if (!minutes) continue;
    for (int a : {u % 100, (u + 1) % 100}) {
      const std::string account = "acct" + std::to_string(a);
      Add(s, "assoc", account + "|" + user,
          {{"Account", account}, {"User", user}, {"GrpTRESMins", "cpu=10000000"}});
    }
  }
  std::map<std::string, std::string> normal = {{"MaxJobsPerUser", "40"},
                                               {"MaxTRESPerUser", "gres/gpu=32"},
                                               {"GrpTRES", "gres/gpu=7000"},
                                               {"MaxWall", "2-00:00:00"}};
  if (minutes) normal["GrpTRESMins"] = "gres/gpu=1000000000";
  Add(s, "qos", "normal", normal);
  return PolicyTable::FromState(s);
}

rota::conf::ClusterConfig MakeConfig() {
  rota::conf::ClusterConfig c;
  c.settings.accounting_storage_tres = {"gres/gpu"};
  c.settings.def_mem_per_cpu = 1000;
  rota::conf::PartitionConfig& p = c.partitions.emplace_back();
  p.name = "batch";
  return c;
}

std::vector<rota::wire::JobRecord> MakeJobs(size_t count) {
  std::mt19937 rng(7);
  std::vector<rota::wire::JobRecord> jobs(count);
  for (size_t i = 0; i < count; ++i) {
    rota::wire::JobRecord& j = jobs[i];
    j.set_job_id(static_cast<uint32_t>(i + 1));
    j.set_req_nodes(1 + rng() % 4);
    j.set_alloc_cpus(1 + rng() % 64);
    j.set_time_limit_s(60 * (1 + rng() % 2880));
    rota::wire::JobSpec* s = j.mutable_spec();
    const uint32_t user = rng() % 1000;
    s->set_user("user" + std::to_string(user));
    s->set_account("acct" + std::to_string(user % 100));
    s->set_partition("batch");
    if (rng() % 2 == 0) s->set_gpus_per_node(std::to_string(rng() % 9));
  }
  return jobs;
}

rota::sched::JobDemand DemandOf(const rota::conf::ClusterConfig& config,
                                const rota::wire::JobRecord& job, bool via_text = false) {
  rota::sched::JobDemand d;
  d.user = job.spec().user();
  d.account = job.spec().account();
  d.qos = "normal";
  d.tres = via_text ? rota::TresCounts::Parse(rota::ctld::RequestedTres(config, job)).value()
                    : rota::ctld::RequestedTresCounts(config, job);
  d.time_limit_s = job.time_limit_s();
  return d;
}

// The job's demand: the hook's share per pending job. Arg 1: through ReqTRES's
// text (before), 0: counted directly (now).
void BM_Demand(benchmark::State& state) {
  const rota::conf::ClusterConfig config = MakeConfig();
  std::vector<rota::wire::JobRecord> jobs = MakeJobs(100'000);
  const bool via_text = state.range(0) != 0;
  for (auto _ : state) {
    uint64_t cpus = 0;
    for (const rota::wire::JobRecord& j : jobs)
      cpus += DemandOf(config, j, via_text).tres.Get("cpu");
    benchmark::DoNotOptimize(cpus);
  }
  state.SetItemsProcessed(state.iterations() * 100'000);
}
BENCHMARK(BM_Demand)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

// Counting 10,000 running jobs, then checking every pending job's limits.
void BM_CountAndCheck(benchmark::State& state) {
  const rota::conf::ClusterConfig config = MakeConfig();
  auto policy = MakePolicy();
  std::vector<rota::wire::JobRecord> running = MakeJobs(10'000);
  std::vector<rota::wire::JobRecord> pending = MakeJobs(static_cast<size_t>(state.range(0)));
  std::vector<rota::sched::JobDemand> running_demands, pending_demands;
  for (const auto& j : running) running_demands.push_back(DemandOf(config, j));
  for (const auto& j : pending) pending_demands.push_back(DemandOf(config, j));
  for (auto _ : state) {
    rota::sched::LimitUsage usage(policy);
    for (const rota::sched::JobDemand& d : running_demands) usage.Add(d);
    size_t held = 0;
    for (const rota::sched::JobDemand& d : pending_demands)
      held += rota::sched::StartLimitReason(usage, d).holds();
    benchmark::DoNotOptimize(held);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CountAndCheck)->Arg(100'000)->Unit(benchmark::kMillisecond);

// The same with GrpTRESMins everywhere, read from a usage ledger that has
// charged the 10,000 running jobs for an hour (every association has usage).
void BM_CountAndCheckMinutes(benchmark::State& state) {
  const rota::conf::ClusterConfig config = MakeConfig();
  auto policy = MakePolicy(/*minutes=*/true);
  std::vector<rota::wire::JobRecord> running = MakeJobs(10'000);
  std::vector<rota::wire::JobRecord> pending = MakeJobs(static_cast<size_t>(state.range(0)));
  std::vector<rota::sched::JobDemand> running_demands, pending_demands;
  std::vector<rota::sched::UsageCharge> charges;
  for (const auto& j : running) {
    rota::sched::JobDemand& d = running_demands.emplace_back(DemandOf(config, j));
    rota::sched::UsageCharge& c = charges.emplace_back();
    c.user = d.user;
    c.qos = d.qos;
    for (const auto* a : policy->Lineage(d.account)) c.lineage.push_back(a->name);
    c.tres = d.tres;
    c.rate = static_cast<double>(d.tres.Get("cpu"));
    c.start = 1;
  }
  for (const auto& j : pending) pending_demands.push_back(DemandOf(config, j));
  rota::sched::UsageLedger ledger;
  ledger.Advance(1, 0, {});
  ledger.Advance(3601, 0, charges);
  for (auto _ : state) {
    rota::sched::LimitUsage usage(policy);
    usage.SetTresMinutes(&ledger, state.range(1) != 0);
    for (const rota::sched::JobDemand& d : running_demands) usage.Add(d);
    size_t held = 0;
    for (const rota::sched::JobDemand& d : pending_demands)
      held += rota::sched::StartLimitReason(usage, d).holds();
    benchmark::DoNotOptimize(held);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CountAndCheckMinutes)
    ->Args({100'000, 0})
    ->Args({100'000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
