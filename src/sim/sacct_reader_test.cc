#include "sim/sacct_reader.h"

#include <gtest/gtest.h>

#include "sim/trace_submission.h"

namespace rota::sim {
namespace {

// What `sacct -a -X -P -o
// JobIDRaw,User,Partition,Submit,Start,End,Timelimit,NNodes,NCPUS,AllocTRES` prints: a 2-node GPU
// job, an array task, a job cancelled while pending, a job still running.
constexpr const char* kExport =
    "JobIDRaw|User|Partition|Submit|Start|End|Timelimit|NNodes|NCPUS|AllocTRES\n"
    "41|alice|gpu|2026-11-29T08:00:00|2026-11-29T08:00:10|2026-11-29T09:00:10|02:00:00|2|16|"
    "billing=16,cpu=16,gres/gpu:a100=8,gres/gpu=8,mem=64G,node=2\n"
    "40_3|bob|cpu|2026-11-29T07:59:00|2026-11-29T08:01:00|2026-11-29T08:02:30|UNLIMITED|1|4|"
    "billing=4,cpu=4,mem=4G,node=1\n"
    "42|alice|gpu|2026-11-29T08:05:00|Unknown|2026-11-29T08:06:00|01:00:00|1|0|\n"
    "43|carol|gpu|2026-11-29T08:06:00|2026-11-29T08:07:00|Unknown|1-00:00:00|1|8|"
    "cpu=8,gres/gpu=1,node=1\n";

TEST(SacctReader, ReadsJobsThatRanInSubmitOrder) {
  ASSERT_TRUE(LooksLikeSacctParsable(kExport));
  Result<Trace> trace = ParseSacctParsable(kExport);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_EQ(trace->stats.lines, 4u);
  EXPECT_EQ(trace->stats.skipped_runtime, 2u);  // Never started; no end yet

  const TraceJob& array_task = trace->jobs[0];  // Submitted a minute before job 41
  EXPECT_EQ(array_task.id, 40u);
  EXPECT_EQ(array_task.submit_s, 0);
  EXPECT_EQ(array_task.runtime_s, 90);
  EXPECT_EQ(array_task.requested_s, -1);  // UNLIMITED: no estimate
  EXPECT_EQ(array_task.processors, 4u);
  EXPECT_EQ(array_task.gpus, 0u);

  const TraceJob& gpu_job = trace->jobs[1];
  EXPECT_EQ(gpu_job.id, 41u);
  EXPECT_EQ(gpu_job.submit_s, 60);
  EXPECT_EQ(gpu_job.runtime_s, 3600);
  EXPECT_EQ(gpu_job.requested_s, 7200);
  EXPECT_EQ(gpu_job.nodes, 2u);
  EXPECT_EQ(gpu_job.processors, 16u);
  EXPECT_EQ(gpu_job.gpus, 8u);
  EXPECT_EQ(gpu_job.gpu_type, "a100");
  EXPECT_NE(gpu_job.user, array_task.user);
  EXPECT_NE(gpu_job.queue, array_task.queue);

  // Replayed as 2 nodes with 4 GPUs each.
  wire::SubmitJobRequest request = SubmissionFor(gpu_job, Estimates::kUser);
  EXPECT_EQ(request.spec().min_nodes(), 2u);
  EXPECT_EQ(request.spec().gres(), "gpu:a100:4");
  EXPECT_EQ(request.spec().time_limit_s(), 7200);
}

TEST(SacctReader, ParsableWithTrailingBarsElapsedAndColumnsInAnyOrder) {
  Result<Trace> trace = ParseSacctParsable(
      "AllocCPUS|Elapsed|Start|Submit|JobID|\n"
      "2|00:10:00|2026-01-01T00:10:00|2026-01-01T00:00:00|7|\n"
      "2|00:10|2026-01-01T00:10:00|not a time|8|\n"
      "2|00:10:00|too|few|\n");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->jobs.size(), 1u);
  EXPECT_EQ(trace->jobs[0].id, 7u);
  EXPECT_EQ(trace->jobs[0].runtime_s, 600);
  EXPECT_EQ(trace->stats.skipped_malformed, 2u);
}

TEST(SacctReader, MissingNeededColumnIsNamed) {
  Result<Trace> trace = ParseSacctParsable("JobID|Submit|Start|End\n1|x|y|z\n");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message().find("NCPUS"), std::string::npos);
  EXPECT_FALSE(ParseSacctParsable("").ok());
  EXPECT_FALSE(LooksLikeSacctParsable("; Version: 2.2\n1 0 10 100 4 -1 -1 4 200\n"));
}

TEST(SacctReader, MaxJobsStopsEarly) {
  Result<Trace> trace = ParseSacctParsable(kExport, 1);
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->jobs.size(), 1u);
  EXPECT_EQ(trace->jobs[0].id, 41u);
}

}  // namespace
}  // namespace rota::sim
