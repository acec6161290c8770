#include "sim/sacct_json_reader.h"

#include <gtest/gtest.h>

#include "cli/accounting/sacct_json.h"

namespace rota::sim {
namespace {

// Trimmed from what Slurm 22.05's `sacct --json` prints: a 2-node GPU job, a
// job cancelled while pending (start 0), and a CPU job with a limit in
// Slurm 23.02's object form.
constexpr const char* kSlurmExport = R"({
  "meta": {"plugin": {"type": "openapi/dbv0.0.38"}},
  "errors": [],
  "jobs": [
    {"job_id": 41, "user": "alice", "partition": "gpu", "allocation_nodes": 2,
     "required": {"CPUs": 16, "memory": 65536},
     "time": {"submission": 1000060, "start": 1000070, "end": 1003670, "elapsed": 3600,
              "limit": 120},
     "tres": {"allocated": [{"type": "cpu", "name": null, "id": 1, "count": 16},
                            {"type": "gres", "name": "gpu", "id": 1001, "count": 8},
                            {"type": "gres", "name": "gpu:a100", "id": 1002, "count": 8},
                            {"type": "node", "name": null, "id": 4, "count": 2}]}},
    {"job_id": 42, "user": "alice", "partition": "gpu",
     "time": {"submission": 1000300, "start": 0, "end": 1000360, "limit": 60},
     "tres": {"allocated": []}},
    {"job_id": 40, "user": "bob", "partition": "cpu", "allocation_nodes": 1,
     "required": {"CPUs": 0},
     "time": {"submission": 1000000, "start": 1000120, "end": 1000210,
              "limit": {"set": true, "infinite": false, "number": 30}},
     "tres": {"allocated": [{"type": "cpu", "name": "", "id": 1, "count": 4}]}},
    "not a job"
  ]
})";

TEST(SacctJsonReader, ReadsSlurmsExportInSubmitOrder) {
  ASSERT_TRUE(LooksLikeJson(kSlurmExport));
  Result<Trace> trace = ParseSacctJson(kSlurmExport);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->stats.lines, 4u);
  EXPECT_EQ(trace->stats.skipped_runtime, 1u);    // Cancelled before it started
  EXPECT_EQ(trace->stats.skipped_malformed, 1u);  // The string

  const TraceJob& cpu_job = trace->jobs[0];
  EXPECT_EQ(cpu_job.id, 40u);
  EXPECT_EQ(cpu_job.submit_s, 0);
  EXPECT_EQ(cpu_job.runtime_s, 90);
  EXPECT_EQ(cpu_job.requested_s, 1800);  // The 23.02 form
  EXPECT_EQ(cpu_job.processors, 4u);     // From the cpu TRES when required.CPUs says 0

  const TraceJob& gpu_job = trace->jobs[1];
  EXPECT_EQ(gpu_job.id, 41u);
  EXPECT_EQ(gpu_job.submit_s, 60);
  EXPECT_EQ(gpu_job.runtime_s, 3600);
  EXPECT_EQ(gpu_job.requested_s, 7200);
  EXPECT_EQ(gpu_job.nodes, 2u);
  EXPECT_EQ(gpu_job.processors, 16u);
  EXPECT_EQ(gpu_job.gpus, 8u);
  EXPECT_EQ(gpu_job.gpu_type, "a100");
  EXPECT_NE(gpu_job.user, cpu_job.user);
}

TEST(SacctJsonReader, ReplaysRotasOwnExport) {
  wire::AccountingJob j;
  j.set_job_id(7);
  j.set_user("dora");
  j.set_partition("gpu");
  j.set_state(wire::JOB_STATE_COMPLETED);
  j.set_submit_time(500);
  j.set_start_time(520);
  j.set_end_time(820);
  j.set_alloc_cpus(8);
  j.set_alloc_nodes(1);
  j.set_alloc_tres("billing=8,cpu=8,gres/gpu=2,mem=16G,node=1");
  j.set_time_limit_s(600);
  Result<Trace> trace = ParseSacctJson(cli::SacctJson({j}, 1000));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->jobs.size(), 1u);
  EXPECT_EQ(trace->jobs[0].id, 7u);
  EXPECT_EQ(trace->jobs[0].runtime_s, 300);
  EXPECT_EQ(trace->jobs[0].requested_s, 600);
  EXPECT_EQ(trace->jobs[0].processors, 8u);
  EXPECT_EQ(trace->jobs[0].gpus, 2u);
}

TEST(SacctJsonReader, RefusesWhatIsNotAnExport) {
  EXPECT_FALSE(ParseSacctJson("{\"jobs\": 3}").ok());
  EXPECT_FALSE(ParseSacctJson("{\"jobs\": [").ok());
  EXPECT_FALSE(LooksLikeJson("JobID|Submit\n"));
  EXPECT_TRUE(LooksLikeJson("  \n{}"));
}

TEST(SacctJsonReader, StopsAtMaxJobs) {
  Result<Trace> trace = ParseSacctJson(kSlurmExport, 1);
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->jobs.size(), 1u);
}

}  // namespace
}  // namespace rota::sim
