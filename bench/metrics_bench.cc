// The CPU cost of one Prometheus scrape of rotarestd's GET /metrics at
// 10,000 unfinished jobs and 1,000 nodes, without a controller: rendering
// the parsed answers, and parsing the controller's three answers (jobs
// projected as the route asks for them) then rendering, which is the route's
// whole work after the RPCs. "bytes" is the size of the exposition.
#include <benchmark/benchmark.h>

#include <string>

#include "conf/cluster_config.h"
#include "diag.pb.h"
#include "model/record_projection.h"
#include "model/wire_encoding.h"
#include "rest/metrics.h"
#include "rota.pb.h"

namespace {

using rota::wire::JobRecord;
using rota::wire::ListJobsResponse;
using rota::wire::ListNodesResponse;

constexpr int kJobs = 10000;
constexpr int kNodes = 1000;
constexpr int kRunning = 3000;  // The rest pend.
constexpr int kUsers = 200;
constexpr int kAccounts = 40;
constexpr int64_t kNow = 1'795'950'000;

// Partitions cpu (nodes 0-499) and gpu (500-999, half a100, half h100); every
// node is in "all" too.
rota::conf::ClusterConfig Config() {
  rota::conf::ClusterConfig c;
  for (const char* name : {"cpu", "gpu", "all"}) {
    rota::conf::PartitionConfig p;
    p.name = name;
    c.partitions.push_back(p);
  }
  return c;
}

ListNodesResponse Nodes() {
  static const char* const kStates[] = {"MIXED", "ALLOCATED", "ALLOCATED", "IDLE", "MIXED+DRAIN",
                                        "MIXED", "ALLOCATED", "IDLE",      "DOWN*"};
  ListNodesResponse r;
  for (int i = 0; i < kNodes; ++i) {
    rota::wire::NodeInfo& n = *r.add_nodes();
    n.mutable_record()->set_name("node" + std::to_string(i));
    n.mutable_record()->set_state(kStates[i % 9]);
    n.set_cpus(128);
    n.set_alloc_cpus(static_cast<uint32_t>((i * 37) % 129));
    n.set_real_memory_mb(1'024'000);
    n.set_alloc_mem_mb(static_cast<uint64_t>((i * 7919) % 1'024'000));
    const bool gpu = i >= kNodes / 2;
    if (gpu) {
      const char* type = i < kNodes * 3 / 4 ? "a100" : "h100";
      n.set_gres(std::string("gpu:") + type + ":8(S:0-1)");
      n.set_gres_used(std::string("gpu:") + type + ":" + std::to_string(i % 9));
    }
    n.add_partitions(gpu ? "gpu" : "cpu");
    n.add_partitions("all");
    n.set_sockets(2);
    n.set_cores_per_socket(32);
    n.set_threads_per_core(2);
    n.add_features("ib");
  }
  r.set_now(kNow);
  return r;
}

ListJobsResponse Jobs() {
  static const char* const kReasons[] = {"Priority",          "Resources",   "Dependency",
                                         "QOSMaxGRESPerUser", "JobHeldUser", "BeginTime"};
  ListJobsResponse r;
  for (int i = 0; i < kJobs; ++i) {
    JobRecord& j = *r.add_jobs();
    j.set_job_id(static_cast<uint32_t>(i + 1));
    j.set_submit_time(kNow - 3600);
    j.set_time_limit_s(86400);
    rota::wire::JobSpec& s = *j.mutable_spec();
    s.set_name("train_" + std::to_string(i % 50));
    s.set_partition(i % 2 ? "gpu" : "cpu");
    s.set_user("user" + std::to_string(i % kUsers));
    s.set_account("account" + std::to_string(i % kAccounts));
    s.set_work_dir("/home/user" + std::to_string(i % kUsers));
    s.set_gres(i % 2 ? "gpu:a100:4" : "");
    if (i < kRunning) {
      j.set_state(rota::wire::JOB_STATE_RUNNING);
      j.set_start_time(kNow - 600);
      j.add_nodes("node" + std::to_string(i % kNodes));
      j.set_alloc_cpus(16);
      j.set_alloc_mem_mb(64000);
      j.set_alloc_gpus(i % 2 ? 4 : 0);
      j.set_alloc_tres(i % 2 ? "cpu=16,mem=62.50G,node=1,billing=16,gres/gpu=4,gres/gpu:a100=4"
                             : "cpu=16,mem=62.50G,node=1,billing=16");
      if (i % 20 == 1) {
        j.set_gpu_idle_since(kNow - 1800);
        j.set_gpu_idle_util(2.5);
      }
    } else {
      j.set_state(rota::wire::JOB_STATE_PENDING);
      j.set_reason(kReasons[i % 6]);
      if (i % 100 == 0) {
        j.set_array_job_id(j.job_id());
        j.set_array_meta(true);
        j.set_array_pending("1-100");
      }
    }
  }
  r.set_now(kNow);
  return r;
}

rota::wire::DiagResponse Diag() {
  rota::wire::DiagResponse d;
  d.set_data_since(kNow - 86400);
  d.set_jobs_submitted(250000);
  d.set_schedule_cycle_counter(86400);
  d.set_schedule_cycle_last(3500);
  d.set_bf_cycle_counter(2880);
  d.set_bf_cycle_last(850000);
  for (int i = 0; i < 40; ++i) {
    rota::wire::RpcCount& c = *d.add_rpc_types();
    c.set_id(static_cast<uint32_t>(2000 + i));
    c.set_name("REQUEST_TYPE_" + std::to_string(i));
    c.set_count(static_cast<uint64_t>(1000 * (i + 1)));
    c.set_total_time_us(static_cast<uint64_t>(7000 * (i + 1)));
  }
  for (int i = 0; i < kUsers; ++i) {
    rota::wire::RpcCount& c = *d.add_rpc_users();
    c.set_id(static_cast<uint32_t>(1000 + i));
    c.set_name("user" + std::to_string(i));
    c.set_count(static_cast<uint64_t>(100 + i));
    c.set_total_time_us(static_cast<uint64_t>(900 + i));
  }
  return d;
}

// The jobs as the controller sends them to the route: each record projected.
std::string EncodeProjected(const ListJobsResponse& jobs) {
  const rota::model::JobFieldSet fields = rota::rest::MetricsJobFields();
  std::string out;
  std::string whole;
  for (const JobRecord& j : jobs.jobs()) {
    whole.clear();
    j.AppendToString(&whole);
    rota::model::AppendProjectedRecordField(ListJobsResponse::kJobsFieldNumber, whole, fields, out);
  }
  rota::model::AppendVarintField(out, ListJobsResponse::kNowFieldNumber, kNow);
  return out;
}

void BM_Render(benchmark::State& state) {
  const ListJobsResponse jobs = Jobs();
  const ListNodesResponse nodes = Nodes();
  const rota::wire::DiagResponse diag = Diag();
  const rota::conf::ClusterConfig config = Config();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = rota::rest::RenderOpenMetrics({jobs, nodes, diag, config});
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Render)->Unit(benchmark::kMillisecond);

void BM_ParseAndRender(benchmark::State& state) {
  const std::string jobs_body = EncodeProjected(Jobs());
  const std::string nodes_body = Nodes().SerializeAsString();
  const std::string diag_body = Diag().SerializeAsString();
  const rota::conf::ClusterConfig config = Config();
  size_t bytes = 0;
  for (auto _ : state) {
    ListJobsResponse jobs;
    ListNodesResponse nodes;
    rota::wire::DiagResponse diag;
    if (!jobs.ParseFromString(jobs_body) || !nodes.ParseFromString(nodes_body) ||
        !diag.ParseFromString(diag_body)) {
      state.SkipWithError("parse failed");
      break;
    }
    std::string text = rota::rest::RenderOpenMetrics({jobs, nodes, diag, config});
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["answer_bytes"] =
      static_cast<double>(jobs_body.size() + nodes_body.size() + diag_body.size());
}
BENCHMARK(BM_ParseAndRender)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
