// Accounting at 100,000 jobs, without rotadbd or the controller:
//   store_upsert    100,000 ended attempts into SQLite, in batches of 1,000
//                   (what the controller's outbox sends per request)
//   store_start_end the same jobs as a start record then an end record each
//   outbox_record   100,000 records made durable in the controller's outbox,
//                   100 per state-loop batch (one fdatasync each)
//   sacct_query     the store's answer to `sacct -a` over all 100,000 jobs
//   sacct_wire      encoding that answer and parsing it back (rotadbd -> sacct)
//   sacct_render    sacct's default aligned listing of the 100,000 jobs
//   pgsql_store_upsert, pgsql_store_start_end, pgsql_sacct_query
//                   the store stages again on PostgreSQL: a throwaway server
//                   (testing/pg_server.h) started here, with fsync on, over
//                   loopback TCP with password login, as rotadbd would use one
// Prints "name value unit" lines. Usage: acct_bench [DIR] (default /tmp);
// --no-pgsql skips the PostgreSQL stages.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/accounting/sacct_fields.h"
#include "ctld/server/accounting_outbox.h"
#include "dbd/pgsql_store.h"
#include "dbd/sqlite_store.h"
#include "testing/pg_server.h"

namespace {

constexpr uint32_t kJobs = 100'000;
constexpr int64_t kStart = 1'795'950'000;

using rota::wire::AccountingJob;
using Clock = std::chrono::steady_clock;

AccountingJob Job(uint32_t id, bool ended) {
  AccountingJob j;
  j.set_cluster("bench");
  j.set_job_id(id);
  j.set_name("train_" + std::to_string(id % 32));
  j.set_user(id % 7 == 0 ? "alice" : "bob");
  j.set_uid(1000 + id % 7);
  j.set_account(id % 3 == 0 ? "physics" : "chemistry");
  j.set_partition("gpu");
  j.set_state(ended ? rota::wire::JOB_STATE_COMPLETED : rota::wire::JOB_STATE_RUNNING);
  j.set_ended(ended);
  j.set_submit_time(kStart + id / 10);
  j.set_start_time(kStart + id / 10 + 5);
  j.set_end_time(ended ? kStart + id / 10 + 600 : 0);
  j.set_nodelist("gpu" + std::to_string(id % 64));
  j.set_alloc_cpus(8);
  j.set_alloc_nodes(1);
  j.set_alloc_tres("cpu=8,mem=64G,node=1,billing=8,gres/gpu=2");
  j.set_req_tres("cpu=8,mem=64G,node=1,billing=8,gres/gpu=2");
  j.set_req_mem_mb(65536);
  j.set_time_limit_s(3600);
  j.set_reason("None");
  return j;
}

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

class NullTransport : public rota::ctld::AccountingTransport {
 public:
  rota::Status Send(const rota::wire::RecordJobsRequest&) override {
    return rota::Status(rota::StatusCode::kUnavailable, "benchmark: rotadbd is away");
  }
};

int Fail(const rota::Status& s) {
  std::fprintf(stderr, "acct_bench: %s\n", s.ToString().c_str());
  return 1;
}

using Batches = std::vector<std::vector<AccountingJob>>;
using StoreOpener =
    std::function<rota::Result<std::unique_ptr<rota::dbd::AccountingStore>>(const std::string&)>;

// The store stages on one backend; `open` makes a fresh store by name. Leaves
// the store of the start/end stage (100,000 ended jobs) in `queried`.
rota::Status StoreStages(const std::string& prefix, const StoreOpener& open, const Batches& ended,
                         const Batches& started,
                         std::unique_ptr<rota::dbd::AccountingStore>& queried) {
  {
    auto store = open("a");
    if (!store.ok()) return store.status();
    auto t = Clock::now();
    for (const auto& b : ended) ROTA_RETURN_IF_ERROR((*store)->UpsertJobs(b));
    std::printf("%sstore_upsert %.1f ms\n", prefix.c_str(), Ms(t));
  }
  auto store = open("b");
  if (!store.ok()) return store.status();
  auto t = Clock::now();
  for (size_t i = 0; i < started.size(); ++i) {
    ROTA_RETURN_IF_ERROR((*store)->UpsertJobs(started[i]));
    ROTA_RETURN_IF_ERROR((*store)->UpsertJobs(ended[i]));
  }
  std::printf("%sstore_start_end %.1f ms\n", prefix.c_str(), Ms(t));
  queried = std::move(store).value();
  return rota::Status::Ok();
}

rota::Result<std::vector<AccountingJob>> QueryStage(const std::string& prefix,
                                                    rota::dbd::AccountingStore& store) {
  rota::wire::QueryJobsRequest query;
  query.set_window_start(kStart);
  auto t = Clock::now();
  auto jobs = store.QueryJobs(query);
  if (!jobs.ok()) return jobs.status();
  std::printf("%ssacct_query %.1f ms\n%ssacct_query_jobs %zu jobs\n", prefix.c_str(), Ms(t),
              prefix.c_str(), jobs->size());
  // `sacct -j ID`: no cluster and no window, one job among all (mean of 20).
  rota::wire::QueryJobsRequest by_id;
  constexpr int kLookups = 20;
  t = Clock::now();
  for (int i = 0; i < kLookups; ++i) {
    by_id.clear_job_ids();
    by_id.add_job_ids(static_cast<uint32_t>(1 + (i * 4999) % kJobs));
    auto one = store.QueryJobs(by_id);
    if (!one.ok()) return one.status();
    if (one->size() != 1) return rota::Status(rota::StatusCode::kInternal, "sacct -j found no job");
  }
  std::printf("%ssacct_one_job %.2f ms\n", prefix.c_str(), Ms(t) / kLookups);
  return jobs;
}

}  // namespace

int main(int argc, char** argv) {
  bool with_pgsql = true;
  std::filesystem::path base = "/tmp";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--no-pgsql") {
      with_pgsql = false;
    } else {
      base = argv[i];
    }
  }
  const std::filesystem::path dir = base / ("acct_bench." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);

  std::vector<AccountingJob> ended, started;
  for (uint32_t id = 1; id <= kJobs; ++id) {
    ended.push_back(Job(id, true));
    started.push_back(Job(id, false));
  }
  auto batches = [](const std::vector<AccountingJob>& all, size_t size) {
    std::vector<std::vector<AccountingJob>> out;
    for (size_t i = 0; i < all.size(); i += size) {
      out.emplace_back(all.begin() + i, all.begin() + std::min(all.size(), i + size));
    }
    return out;
  };

  std::unique_ptr<rota::dbd::AccountingStore> store;
  auto open_sqlite =
      [&](const std::string& name) -> rota::Result<std::unique_ptr<rota::dbd::AccountingStore>> {
    auto opened = rota::dbd::SqliteStore::Open((dir / (name + ".sqlite")).string());
    if (!opened.ok()) return opened.status();
    return std::unique_ptr<rota::dbd::AccountingStore>(std::move(opened).value());
  };
  if (rota::Status s =
          StoreStages("", open_sqlite, batches(ended, 1000), batches(started, 1000), store);
      !s.ok()) {
    return Fail(s);
  }
  {
    rota::ctld::PosixFileOps ops;
    rota::ctld::AccountingOutbox::Options options;
    options.dir = (dir / "outbox").string();
    auto box = rota::ctld::AccountingOutbox::Open(&ops, options, std::make_unique<NullTransport>());
    if (!box.ok()) return Fail(box.status());
    auto t = Clock::now();
    for (const auto& b : batches(ended, 100)) {
      if (rota::Status s = (*box)->Record(b); !s.ok()) return Fail(s);
    }
    std::printf("outbox_record %.1f ms\n", Ms(t));
  }

  auto jobs = QueryStage("", *store);
  if (!jobs.ok()) return Fail(jobs.status());

  auto t = Clock::now();
  rota::wire::QueryJobsResponse response;  // As rotadbd builds it: moved in
  for (AccountingJob& j : *jobs) *response.add_jobs() = std::move(j);
  std::string bytes = response.SerializeAsString();
  rota::wire::QueryJobsResponse parsed;
  parsed.ParseFromString(bytes);
  std::vector<AccountingJob> received;  // As sacct takes them: moved out of the answer
  received.reserve(static_cast<size_t>(parsed.jobs_size()));
  for (AccountingJob& j : *parsed.mutable_jobs()) received.push_back(std::move(j));
  std::printf("sacct_wire %.1f ms\nsacct_wire_bytes %zu bytes\n", Ms(t), bytes.size());

  t = Clock::now();
  auto columns = rota::cli::ParseSacctFormat(rota::cli::kSacctDefaultFormat);
  rota::cli::SacctContext ctx;
  ctx.now = kStart + 100000;
  std::string text =
      rota::cli::RenderSacct(*columns, rota::cli::SacctLayout::kAligned, false, received, ctx);
  std::printf("sacct_render %.1f ms\nsacct_render_bytes %zu bytes\n", Ms(t), text.size());
  std::filesystem::remove_all(dir);
  if (!with_pgsql) return 0;

  rota::testing::PostgresServer server;
  if (std::string why = server.Start(/*durable=*/true); !why.empty()) {
    std::fprintf(stderr, "acct_bench: PostgreSQL: %s\n", why.c_str());
    return 1;
  }
  auto open_pgsql =
      [&](const std::string&) -> rota::Result<std::unique_ptr<rota::dbd::AccountingStore>> {
    rota::dbd::PgsqlOptions o;
    o.host = "127.0.0.1";
    o.port = server.port();
    o.user = server.user();
    o.password = server.password();
    o.database = server.CreateDatabase();
    auto opened = rota::dbd::PgsqlStore::Open(o);
    if (!opened.ok()) return opened.status();
    return std::unique_ptr<rota::dbd::AccountingStore>(std::move(opened).value());
  };
  store.reset();
  if (rota::Status s =
          StoreStages("pgsql_", open_pgsql, batches(ended, 1000), batches(started, 1000), store);
      !s.ok()) {
    return Fail(s);
  }
  auto pg_jobs = QueryStage("pgsql_", *store);
  if (!pg_jobs.ok()) return Fail(pg_jobs.status());
  store.reset();
  return 0;
}
