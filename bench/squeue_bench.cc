// The CPU cost of each stage of `squeue` over 10,000 pending jobs, without a
// controller or a process start: encoding the answer (controller side),
// parsing it, sorting and rendering (command side), and the command's whole
// work on an answer. The jobs look like the
// ones bench/ctld_load.cc submits, which ctld_bench.sh's squeue_10k_ms lists.
#include <benchmark/benchmark.h>
#include <google/protobuf/arena.h>

#include <string>
#include <vector>

#include "cli/format/squeue_fields.h"
#include "cli/query/job_listing.h"
#include "model/record_projection.h"
#include "model/wire_encoding.h"
#include "rota.pb.h"

namespace {

using rota::wire::JobRecord;
using rota::wire::ListJobsResponse;
namespace format = rota::cli::format;

constexpr int kJobs = 10000;
constexpr int64_t kNow = 1'795'950'000;

std::vector<JobRecord> HeldJobs() {
  std::vector<JobRecord> jobs(kJobs);
  for (int i = 0; i < kJobs; ++i) {
    JobRecord& j = jobs[static_cast<size_t>(i)];
    j.set_job_id(static_cast<uint32_t>(i + 1));
    j.set_state(rota::wire::JOB_STATE_PENDING);
    j.set_reason("JobHeldUser");
    j.set_submit_time(kNow - 60);
    j.set_eligible_time(kNow - 60);
    j.set_time_limit_s(3600);
    j.set_requeue(true);
    j.set_req_nodes(1);
    rota::wire::JobSpec& s = *j.mutable_spec();
    s.set_name("ctld_load_" + std::to_string(i % 16));
    s.set_partition("batch");
    s.set_hold(true);
    s.set_work_dir("/tmp");
    s.set_user("root");
    s.set_group("root");
  }
  return jobs;
}

// The controller's encoding: whole records, or projected to `fields`.
std::string Encode(const std::vector<JobRecord>& jobs, const rota::model::JobFieldSet& fields) {
  std::string out;
  std::string whole;
  for (const JobRecord& j : jobs) {
    if (fields.empty()) {
      rota::model::AppendMessageField(out, ListJobsResponse::kJobsFieldNumber, j);
      continue;
    }
    whole.clear();
    j.AppendToString(&whole);
    // Our own bytes: always well-formed.
    rota::model::AppendProjectedRecordField(ListJobsResponse::kJobsFieldNumber, whole, fields, out);
  }
  rota::model::AppendVarintField(out, ListJobsResponse::kNowFieldNumber, kNow);
  return out;
}

rota::model::JobFieldSet DefaultProjection() {
  return format::SqueueProjection(format::SqueueOptions()).value();
}

void BM_EncodeWhole(benchmark::State& state) {
  const std::vector<JobRecord> jobs = HeldJobs();
  for (auto _ : state) benchmark::DoNotOptimize(Encode(jobs, {}));
}
BENCHMARK(BM_EncodeWhole)->Unit(benchmark::kMillisecond);

void BM_EncodeProjected(benchmark::State& state) {
  const std::vector<JobRecord> jobs = HeldJobs();
  const rota::model::JobFieldSet fields = DefaultProjection();
  for (auto _ : state) benchmark::DoNotOptimize(Encode(jobs, fields));
}
BENCHMARK(BM_EncodeProjected)->Unit(benchmark::kMillisecond);

void Parse(benchmark::State& state, const std::string& body) {
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* r = google::protobuf::Arena::CreateMessage<ListJobsResponse>(&arena);
    if (!r->ParseFromString(body)) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.counters["bytes"] = static_cast<double>(body.size());
}

void BM_ParseWhole(benchmark::State& state) { Parse(state, Encode(HeldJobs(), {})); }
BENCHMARK(BM_ParseWhole)->Unit(benchmark::kMillisecond);

void BM_ParseProjected(benchmark::State& state) {
  Parse(state, Encode(HeldJobs(), DefaultProjection()));
}
BENCHMARK(BM_ParseProjected)->Unit(benchmark::kMillisecond);

void BM_SortDefault(benchmark::State& state) {
  const std::vector<JobRecord> jobs = HeldJobs();
  std::vector<const JobRecord*> rows;
  for (const JobRecord& j : jobs) rows.push_back(&j);
  format::SqueueContext ctx{kNow, 0};
  for (auto _ : state) {
    std::vector<const JobRecord*> copy = rows;
    (void)format::SortJobs(copy, format::kSqueueDefaultSort, ctx);
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_SortDefault)->Unit(benchmark::kMillisecond);

// Sorting and rendering: what RenderSqueue does after the parse.
void BM_RenderDefault(benchmark::State& state) {
  const std::vector<JobRecord> jobs = HeldJobs();
  format::SqueueContext ctx{kNow, 0};
  for (auto _ : state) {
    auto listing = format::RenderSqueue(jobs, format::SqueueOptions(), ctx);
    benchmark::DoNotOptimize(listing);
  }
}
BENCHMARK(BM_RenderDefault)->Unit(benchmark::kMillisecond);

// Splitting the answer and parsing each job into the reused message: the
// parse share of BM_Command*.
void BM_LoadProjected(benchmark::State& state) {
  const std::string body = Encode(HeldJobs(), DefaultProjection());
  for (auto _ : state) {
    auto listing = rota::cli::JobListing::Parse(body);
    for (size_t i = 0; i < listing->size(); ++i) benchmark::DoNotOptimize(listing->Load(i));
  }
}
BENCHMARK(BM_LoadProjected)->Unit(benchmark::kMillisecond);

// What the command does with the controller's answer: split it, then parse,
// sort and render each job through one reused message (squeue_main.cc).
void Listing(benchmark::State& state, const std::string& body) {
  format::SqueueContext ctx{kNow, 0};
  for (auto _ : state) {
    auto listing = rota::cli::JobListing::Parse(body);
    auto text = format::RenderSqueue(
        listing->size(), [&](size_t i) { return listing->Load(i); }, format::SqueueOptions(), ctx);
    benchmark::DoNotOptimize(text);
  }
}

void BM_CommandWhole(benchmark::State& state) { Listing(state, Encode(HeldJobs(), {})); }
BENCHMARK(BM_CommandWhole)->Unit(benchmark::kMillisecond);

void BM_CommandProjected(benchmark::State& state) {
  Listing(state, Encode(HeldJobs(), DefaultProjection()));
}
BENCHMARK(BM_CommandProjected)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
