#include "noded/stepd/stdio_path.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

wire::JobLaunch Job() {
  wire::JobLaunch job;
  job.set_job_id(42);
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->set_user("alice");
  job.mutable_spec()->set_work_dir("/home/alice/run");
  return job;
}

TEST(StdioPathTest, ExpandsSlurmSymbols) {
  wire::JobLaunch job = Job();
  EXPECT_EQ(ExpandStdioPattern("%x-%j-%u-%N-%%-%q.log", job, "n3"), "train-42-alice-n3-%-%q.log");
  EXPECT_EQ(ExpandStdioPattern("o_%5j_%A_%a", job, "n"), "o_00042_42_4294967294");
  // dask-jobqueue's "-e LOG/dask-worker-%J.err": the batch step's %J is the job id.
  EXPECT_EQ(ExpandStdioPattern("dask-worker-%J.err|%4J", job, "n"), "dask-worker-42.err|0042");
  // One file per node or task of the batch step: its only node and task are 0.
  EXPECT_EQ(ExpandStdioPattern("%n.%t.%2n.%3t.%s", job, "n"), "0.0.00.000.4294967291");
  job.set_array_job_id(40);
  job.set_array_task_id(7);
  EXPECT_EQ(ExpandStdioPattern("%A_%a_%3a_%j%", job, "n"), "40_7_007_42%");
}

TEST(StdioPathTest, DefaultsAndRelativePaths) {
  wire::JobLaunch job = Job();
  StdioPaths p = ResolveStdioPaths(job, "n1");
  EXPECT_EQ(p.out, "/home/alice/run/slurm-42.out");
  EXPECT_EQ(p.err, p.out);
  EXPECT_FALSE(p.append);
  job.mutable_spec()->set_std_out("/tmp/%x.out");
  job.mutable_spec()->set_std_err("logs/%j.err");
  job.mutable_spec()->set_open_mode("append");
  job.set_array_job_id(40);
  p = ResolveStdioPaths(job, "n1");
  EXPECT_EQ(p.out, "/tmp/train.out");
  EXPECT_EQ(p.err, "/home/alice/run/logs/42.err");
  EXPECT_TRUE(p.append);
  job.mutable_spec()->clear_std_out();
  EXPECT_EQ(ResolveStdioPaths(job, "n1").out, "/home/alice/run/slurm-40_0.out");
}

}  // namespace
}  // namespace rota::noded
