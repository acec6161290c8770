#include "rest/metrics.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/methods.h"
#include "rest/fake_backend_for_test.h"
#include "rest/rest_json.h"

namespace rota::rest {
namespace {

using wire::JobRecord;
using wire::NodeInfo;

// A small cluster: partitions cpu (n1, n3, n4), gpu (n2, n3) and debug
// (no nodes). n3 is in both partitions and draining; n4 is down and silent.
conf::ClusterConfig Config() {
  conf::ClusterConfig c;
  for (const char* name : {"cpu", "gpu", "debug"}) {
    conf::PartitionConfig p;
    p.name = name;
    c.partitions.push_back(p);
  }
  return c;
}

NodeInfo Node(const std::string& name, const std::string& state, uint32_t cpus, uint32_t alloc_cpus,
              uint64_t mem, uint64_t alloc_mem, const std::string& gres,
              const std::string& gres_used, std::vector<std::string> partitions) {
  NodeInfo n;
  n.mutable_record()->set_name(name);
  n.mutable_record()->set_state(state);
  n.set_cpus(cpus);
  n.set_alloc_cpus(alloc_cpus);
  n.set_real_memory_mb(mem);
  n.set_alloc_mem_mb(alloc_mem);
  n.set_gres(gres);
  n.set_gres_used(gres_used);
  for (const std::string& p : partitions) n.add_partitions(p);
  return n;
}

wire::ListNodesResponse Nodes() {
  wire::ListNodesResponse r;
  *r.add_nodes() = Node("n1", "MIXED", 32, 8, 128000, 16000, "", "", {"cpu"});
  *r.add_nodes() =
      Node("n2", "ALLOCATED", 64, 64, 512000, 256000, "gpu:a100:4(S:0-1)", "gpu:a100:4", {"gpu"});
  NodeInfo n3 = Node("n3", "MIXED+DRAIN", 64, 16, 512000, 64000, "gpu:h100:8(S:0,1),gpu:a100:2",
                     "gpu:h100:2", {"cpu", "gpu"});
  n3.mutable_record()->set_drain(true);
  *r.add_nodes() = n3;
  *r.add_nodes() = Node("n4", "DOWN*", 16, 0, 64000, 0, "gpu:2,nic:1", "", {"cpu"});
  return r;
}

JobRecord Job(uint32_t id, wire::JobState state, const std::string& user,
              const std::string& account) {
  JobRecord j;
  j.set_job_id(id);
  j.set_state(state);
  j.mutable_spec()->set_user(user);
  j.mutable_spec()->set_account(account);
  return j;
}

wire::ListJobsResponse Jobs() {
  wire::ListJobsResponse r;
  JobRecord j1 = Job(1, wire::JOB_STATE_RUNNING, "alice", "physics");
  j1.set_alloc_gpus(4);
  *r.add_jobs() = j1;
  // GPUs known from the TRES only; flagged idle with its requeue scheduled.
  JobRecord j2 = Job(2, wire::JOB_STATE_RUNNING, "bob", "bio");
  j2.set_alloc_tres("cpu=16,mem=64000M,node=1,billing=16,gres/gpu=2,gres/gpu:h100=2");
  j2.set_gpu_idle_since(1'699'990'000);
  j2.set_gpu_idle_util(1.5);
  j2.set_gpu_idle_action_at(1'700'001'000);
  *r.add_jobs() = j2;
  *r.add_jobs() = Job(3, wire::JOB_STATE_RUNNING, "alice", "physics");
  JobRecord j4 = Job(4, wire::JOB_STATE_PENDING, "alice", "physics");
  j4.set_reason("Resources");
  *r.add_jobs() = j4;
  JobRecord j5 = Job(5, wire::JOB_STATE_PENDING, "bob", "bio");
  j5.set_reason("Priority");
  *r.add_jobs() = j5;
  // An array's meta record: four pending tasks.
  JobRecord j6 = Job(6, wire::JOB_STATE_PENDING, "bob", "bio");
  j6.set_reason("Priority");
  j6.set_array_job_id(6);
  j6.set_array_meta(true);
  j6.set_array_pending("3-5,9");
  *r.add_jobs() = j6;
  *r.add_jobs() = Job(7, wire::JOB_STATE_SUSPENDED, "carol", "chem");
  JobRecord j8 = Job(8, wire::JOB_STATE_COMPLETING, "carol", "chem");
  j8.set_alloc_gpus(1);
  *r.add_jobs() = j8;
  return r;
}

wire::DiagResponse Diag() {
  wire::DiagResponse d;
  d.set_data_since(1'699'000'000);
  d.set_server_thread_count(3);
  d.set_jobs_submitted(120);
  d.set_jobs_started(100);
  d.set_jobs_completed(90);
  d.set_jobs_canceled(4);
  d.set_jobs_failed(2);
  d.set_schedule_cycle_last(1500);
  d.set_schedule_cycle_max(250000);
  d.set_schedule_cycle_mean(2000);
  d.set_schedule_cycle_counter(42);
  d.set_schedule_cycle_mean_depth(7);
  d.set_schedule_queue_len(6);
  d.set_backfill_enabled(true);
  d.set_bf_backfilled_jobs(11);
  d.set_bf_cycle_counter(9);
  d.set_bf_when_last_cycle(1'699'999'990);
  d.set_bf_cycle_last(30000);
  d.set_bf_cycle_max(1'200'000);
  d.set_bf_cycle_mean(45000);
  d.set_bf_queue_len(5);
  auto rpc = [](auto* list, uint32_t id, const std::string& name, uint64_t count, uint64_t us) {
    wire::RpcCount* c = list->Add();
    c->set_id(id);
    c->set_name(name);
    c->set_count(count);
    c->set_total_time_us(us);
  };
  rpc(d.mutable_rpc_types(), 4003, "REQUEST_SUBMIT_BATCH_JOB", 120, 600000);
  rpc(d.mutable_rpc_types(), 2003, "REQUEST_JOB_INFO", 30, 1500);
  rpc(d.mutable_rpc_users(), 1000, "alice", 100, 500000);
  rpc(d.mutable_rpc_users(), 4242, "", 3, 30);
  return d;
}

// The value of the sample `key` (name and labels as written), or "absent".
std::string Value(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ' ') {
      return line.substr(key.size() + 1);
    }
  }
  return "absent";
}

class MetricsTest : public ::testing::Test {
 protected:
  std::string Render() { return RenderOpenMetrics({jobs_, nodes_, diag_, config_}); }

  wire::ListJobsResponse jobs_ = Jobs();
  wire::ListNodesResponse nodes_ = Nodes();
  wire::DiagResponse diag_ = Diag();
  conf::ClusterConfig config_ = Config();
};

TEST_F(MetricsTest, NodesByState) {
  const std::string out = Render();
  EXPECT_EQ(Value(out, R"(rota_nodes{state="mixed"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_nodes{state="allocated"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_nodes{state="draining"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_nodes{state="down*"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_nodes{state="idle"})"), "absent");
}

TEST_F(MetricsTest, CpusAndMemoryPerPartition) {
  const std::string out = Render();
  // cpu: n1 (8 of 32 used), n3 draining (16 of 64), n4 down (0 of 16).
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="cpu",state="allocated"})"), "24");
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="cpu",state="idle"})"), "24");
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="cpu",state="down"})"), "64");
  // gpu: n2 full, n3 draining.
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="gpu",state="allocated"})"), "80");
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="gpu",state="idle"})"), "0");
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="gpu",state="down"})"), "48");
  // A configured partition without nodes still reports.
  EXPECT_EQ(Value(out, R"(rota_partition_cpus{partition="debug",state="idle"})"), "0");
  // cpu: allocated 16000+64000 MiB, idle 112000, down 448000+64000.
  EXPECT_EQ(Value(out, R"(rota_partition_memory_bytes{partition="cpu",state="allocated"})"),
            std::to_string(80000ULL << 20));
  EXPECT_EQ(Value(out, R"(rota_partition_memory_bytes{partition="cpu",state="idle"})"),
            std::to_string(112000ULL << 20));
  EXPECT_EQ(Value(out, R"(rota_partition_memory_bytes{partition="cpu",state="down"})"),
            std::to_string(512000ULL << 20));
  EXPECT_NE(out.find("# UNIT rota_partition_memory_bytes bytes\n"), std::string::npos);
}

TEST_F(MetricsTest, GpusPerPartitionAndType) {
  const std::string out = Render();
  auto gpus = [&](const char* partition, const char* type, const char* state) {
    return Value(out, fmt::format(R"(rota_partition_gpus{{partition="{}",type="{}",state="{}"}})",
                                  partition, type, state));
  };
  // gpu: n2's four a100 in use; n3 draining with 2 of 8 h100 in use and 2 a100 free.
  EXPECT_EQ(gpus("gpu", "a100", "allocated"), "4");
  EXPECT_EQ(gpus("gpu", "a100", "idle"), "0");
  EXPECT_EQ(gpus("gpu", "a100", "down"), "2");
  EXPECT_EQ(gpus("gpu", "h100", "allocated"), "2");
  EXPECT_EQ(gpus("gpu", "h100", "down"), "6");
  // cpu: n3 again, and n4's two untyped GPUs (down); its nic is no GPU.
  EXPECT_EQ(gpus("cpu", "h100", "allocated"), "2");
  EXPECT_EQ(gpus("cpu", "", "down"), "2");
  EXPECT_EQ(gpus("gpu", "", "down"), "absent");
  EXPECT_EQ(out.find("nic"), std::string::npos);
}

TEST_F(MetricsTest, JobsByStateAndReason) {
  const std::string out = Render();
  EXPECT_EQ(Value(out, R"(rota_jobs{state="PENDING"})"), "6");  // The array's 4 tasks count.
  EXPECT_EQ(Value(out, R"(rota_jobs{state="RUNNING"})"), "3");
  EXPECT_EQ(Value(out, R"(rota_jobs{state="SUSPENDED"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_jobs{state="COMPLETING"})"), "1");
  EXPECT_EQ(Value(out, R"(rota_jobs{state="COMPLETED"})"), "absent");
  EXPECT_EQ(Value(out, R"(rota_pending_jobs{reason="Priority"})"), "5");
  EXPECT_EQ(Value(out, R"(rota_pending_jobs{reason="Resources"})"), "1");
}

TEST_F(MetricsTest, JobsPerAccountAndUser) {
  const std::string out = Render();
  EXPECT_EQ(Value(out, R"(rota_account_running_jobs{account="physics"})"), "2");
  EXPECT_EQ(Value(out, R"(rota_account_running_gpus{account="physics"})"), "4");
  EXPECT_EQ(Value(out, R"(rota_account_running_gpus{account="bio"})"), "2");  // From alloc_tres.
  EXPECT_EQ(Value(out, R"(rota_account_pending_jobs{account="bio"})"), "5");
  // A completing job's GPUs are not a running job's.
  EXPECT_EQ(Value(out, R"(rota_account_running_gpus{account="chem"})"), "0");
  EXPECT_EQ(Value(out, R"(rota_user_running_jobs{user="alice"})"), "2");
  EXPECT_EQ(Value(out, R"(rota_user_running_gpus{user="bob"})"), "2");
  EXPECT_EQ(Value(out, R"(rota_user_pending_jobs{user="alice"})"), "1");
}

// Hashed while counting, written in name order: the same state scrapes alike.
TEST_F(MetricsTest, LabelsInNameOrder) {
  for (const char* user : {"zed", "mia", "abe", "kim", "bo"}) {
    *jobs_.add_jobs() = Job(100, wire::JOB_STATE_RUNNING, user, user);
  }
  const std::string out = Render();
  std::vector<size_t> at;
  for (const char* user : {"abe", "alice", "bo", "bob", "carol", "kim", "mia", "zed"}) {
    at.push_back(out.find(fmt::format(R"(rota_user_running_jobs{{user="{}"}})", user)));
    ASSERT_NE(at.back(), std::string::npos) << user;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
}

TEST_F(MetricsTest, GpuIdleJobs) {
  std::string out = Render();
  EXPECT_EQ(Value(out, "rota_gpu_idle_jobs"), "1");
  EXPECT_EQ(Value(out, "rota_gpu_idle_gpus"), "2");
  EXPECT_EQ(Value(out, "rota_gpu_idle_action_jobs"), "1");
  EXPECT_EQ(Value(out, "rota_gpu_idle_utilization_ratio"), "0.015");
  jobs_.mutable_jobs(1)->clear_gpu_idle_since();
  out = Render();
  EXPECT_EQ(Value(out, "rota_gpu_idle_jobs"), "0");
  EXPECT_EQ(out.find("rota_gpu_idle_utilization_ratio"), std::string::npos);
}

TEST_F(MetricsTest, SchedulerAndRpcStatistics) {
  const std::string out = Render();
  EXPECT_EQ(Value(out, "rota_controller_jobs_submitted_total"), "120");
  EXPECT_EQ(Value(out, "rota_controller_jobs_submitted_created"), "1699000000");
  EXPECT_EQ(Value(out, "rota_controller_jobs_failed_total"), "2");
  EXPECT_EQ(Value(out, "rota_scheduler_main_cycle_last_seconds"), "0.0015");
  EXPECT_EQ(Value(out, "rota_scheduler_main_cycle_max_seconds"), "0.25");
  EXPECT_EQ(Value(out, "rota_scheduler_main_cycle_mean_seconds"), "0.002");
  EXPECT_EQ(Value(out, "rota_scheduler_main_cycles_total"), "42");
  EXPECT_EQ(Value(out, "rota_scheduler_main_queue_length"), "6");
  EXPECT_EQ(Value(out, "rota_scheduler_backfill_cycle_max_seconds"), "1.2");
  EXPECT_EQ(Value(out, "rota_scheduler_backfill_cycles_total"), "9");
  EXPECT_EQ(Value(out, "rota_scheduler_backfill_last_cycle_timestamp_seconds"), "1699999990");
  EXPECT_EQ(Value(out, "rota_scheduler_backfilled_jobs_total"), "11");
  // Not reset with the others: no _created.
  EXPECT_EQ(Value(out, "rota_scheduler_backfilled_jobs_created"), "absent");
  EXPECT_EQ(Value(out, R"(rota_rpc_type_calls_total{rpc="REQUEST_SUBMIT_BATCH_JOB"})"), "120");
  EXPECT_EQ(Value(out, R"(rota_rpc_type_time_seconds_total{rpc="REQUEST_SUBMIT_BATCH_JOB"})"),
            "0.6");
  EXPECT_EQ(Value(out, R"(rota_rpc_user_calls_total{user="alice"})"), "100");
  EXPECT_EQ(Value(out, R"(rota_rpc_user_calls_total{user="4242"})"), "3");  // Nameless: its uid.
  EXPECT_EQ(Value(out, "rota_controller_refusing_changes"), "0");
  diag_.set_refusing_changes("disk full");
  EXPECT_EQ(Value(Render(), "rota_controller_refusing_changes"), "1");
}

TEST_F(MetricsTest, DuplicateRpcNamesMerge) {
  wire::RpcCount* again = diag_.add_rpc_users();
  again->set_name("alice");
  again->set_count(5);
  const std::string out = Render();
  EXPECT_EQ(Value(out, R"(rota_rpc_user_calls_total{user="alice"})"), "105");
}

TEST_F(MetricsTest, EscapesLabelValues) {
  *jobs_.add_jobs() = Job(9, wire::JOB_STATE_RUNNING, "dave", "we\"ird\\acct\nx");
  const std::string out = Render();
  EXPECT_EQ(Value(out, R"(rota_account_running_jobs{account="we\"ird\\acct\nx"})"), "1");
}

// The text's structure: metadata before samples, each family once, each
// sample's name belonging to the family above it, no label set twice, and
// "# EOF" as the last line.
TEST_F(MetricsTest, WellFormedExposition) {
  *jobs_.add_jobs() = Job(9, wire::JOB_STATE_RUNNING, "dave", "a\"b");
  const std::string out = Render();
  ASSERT_GE(out.size(), 6u);
  EXPECT_EQ(out.substr(out.size() - 6), "# EOF\n");
  EXPECT_EQ(out.find("# EOF"), out.size() - 6);

  std::set<std::string> families;
  std::set<std::string> samples;
  std::string family, type;
  std::istringstream lines(out.substr(0, out.size() - 6));
  std::string line;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# ", 0) == 0) {
      std::istringstream words(line);
      std::string hash, kind, name, rest;
      words >> hash >> kind >> name >> rest;
      ASSERT_TRUE(kind == "HELP" || kind == "TYPE" || kind == "UNIT") << line;
      if (kind == "HELP") {
        EXPECT_TRUE(families.insert(name).second) << "family twice: " << name;
        EXPECT_EQ(name.rfind("rota_", 0), 0u) << name;
        family = name;
      } else {
        EXPECT_EQ(name, family) << line;
      }
      if (kind == "TYPE") type = rest;
      if (kind == "UNIT") {
        EXPECT_TRUE(name.ends_with("_" + rest)) << line;
      }
      continue;
    }
    const std::string key = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(samples.insert(key).second) << "sample twice: " << key;
    const std::string name = key.substr(0, key.find('{'));
    if (type == "counter") {
      EXPECT_TRUE(name == family + "_total" || name == family + "_created") << line;
    } else {
      EXPECT_EQ(type, "gauge");
      EXPECT_EQ(name, family) << line;
    }
  }
  EXPECT_GT(families.size(), 40u);
}

TEST(MetricsEmptyTest, EmptyClusterRenders) {
  wire::ListJobsResponse jobs;
  wire::ListNodesResponse nodes;
  wire::DiagResponse diag;
  conf::ClusterConfig config;
  const std::string out = RenderOpenMetrics({jobs, nodes, diag, config});
  EXPECT_EQ(Value(out, R"(rota_jobs{state="PENDING"})"), "0");
  EXPECT_EQ(Value(out, "rota_controller_jobs_submitted_created"), "absent");
  EXPECT_TRUE(out.ends_with("# EOF\n"));
}

// ---------------------------------------------------------------- route ----

class MetricsRouteTest : public MetricsTest {
 protected:
  MetricsRouteTest() : backend_(std::make_shared<conf::ClusterConfig>(Config())) {
    AddMetricsRoute(router_);
    backend_.AnswerController(api::kListJobs, jobs_);
    backend_.AnswerController(api::kListNodes, nodes_);
    backend_.AnswerController(api::kDiag, diag_);
  }

  HttpResponse Get() {
    Router::Match m = router_.Find("GET", "/metrics");
    EXPECT_NE(m.route, nullptr);
    if (m.route == nullptr) return {};
    HttpRequest request;
    request.method = "GET";
    request.path = "/metrics";
    return m.route->handler(request, m.params, backend_);
  }

  Router router_;
  FakeBackend backend_;
};

TEST_F(MetricsRouteTest, AnswersTheRenderedText) {
  const HttpResponse r = Get();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(r.body, Render());
  EXPECT_EQ(Value(r.body, R"(rota_partition_cpus{partition="debug",state="idle"})"), "0");

  ASSERT_EQ(backend_.controller_calls.size(), 3u);
  EXPECT_EQ(backend_.controller_calls[0].method, api::kListJobs);
  EXPECT_EQ(backend_.controller_calls[1].method, api::kListNodes);
  EXPECT_EQ(backend_.controller_calls[2].method, api::kDiag);
  wire::ListJobsRequest asked;
  ASSERT_TRUE(asked.ParseFromString(backend_.controller_calls[0].request_bytes));
  EXPECT_FALSE(asked.include_finished());
  EXPECT_TRUE(asked.job_ids().empty());
  EXPECT_FALSE(asked.record_fields().empty());  // Projected to what the metrics read.
  wire::DiagRequest diag_asked;
  ASSERT_TRUE(diag_asked.ParseFromString(backend_.controller_calls[2].request_bytes));
  EXPECT_FALSE(diag_asked.reset());
}

TEST_F(MetricsRouteTest, OnlyGet) {
  EXPECT_EQ(router_.Find("POST", "/metrics").route, nullptr);
  EXPECT_TRUE(router_.Find("POST", "/metrics").path_known);
}

TEST_F(MetricsRouteTest, RefusalAnswersItsStatus) {
  backend_.AnswerController(api::kDiag, [](const std::string&) -> Result<std::string> {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  });
  const HttpResponse r = Get();
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.content_type, "application/json");
  const Json body = Json::parse(r.body);
  ASSERT_EQ(body["errors"].size(), 1u);
  EXPECT_EQ(body["errors"][0]["error"], "Access/permission denied");
  EXPECT_EQ(body["errors"][0]["errno"], kEslurmAccessDenied);
}

TEST_F(MetricsRouteTest, ControllerOutOfReachIs503) {
  backend_.AnswerController(api::kListNodes, [](const std::string&) -> Result<std::string> {
    return Status(StatusCode::kUnavailable, "cannot reach rotactld");
  });
  const HttpResponse r = Get();
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(backend_.controller_calls.size(), 2u);  // Stops at the first refusal.
}

TEST_F(MetricsRouteTest, MalformedAnswerIs500) {
  backend_.AnswerController(api::kListJobs, [](const std::string&) -> Result<std::string> {
    return std::string("\xff\xff\xff", 3);
  });
  EXPECT_EQ(Get().status, 500);
}

}  // namespace
}  // namespace rota::rest
