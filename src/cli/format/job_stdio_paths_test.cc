// The stdio paths scontrol show job and squeue -O StdOut show.
#include "cli/format/job_stdio_paths.h"

#include <gtest/gtest.h>

namespace rota::cli {
namespace {

wire::JobRecord Job() {
  wire::JobRecord job;
  job.set_job_id(42);
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->set_user("alice");
  job.mutable_spec()->set_work_dir("/home/alice/run");
  return job;
}

TEST(JobStdioPathsTest, ExpandsWhatTheListingKnowsAndKeepsTheRest) {
  const wire::JobRecord job = Job();
  EXPECT_EQ(ExpandJobStdioPattern("/logs/%x-%j-%u.out", job), "/logs/train-42-alice.out");
  EXPECT_EQ(ExpandJobStdioPattern("o_%5j_%A_%a_%b", job),
            "/home/alice/run/o_00042_42_4294967294_4");
  // Expanded where the job runs, so shown as written.
  EXPECT_EQ(ExpandJobStdioPattern("%N.%n.%t.%s.%J.%%.%q", job),
            "/home/alice/run/%N.%n.%t.%s.%J.%.%q");
  EXPECT_EQ(ExpandJobStdioPattern("tail%", job), "/home/alice/run/tail%");
  EXPECT_EQ(ExpandJobStdioPattern("w%12j", job), "/home/alice/run/w0000000042");
}

TEST(JobStdioPathsTest, DefaultsOfABatchJobAndOfOneWithoutAScript) {
  wire::JobRecord job = Job();
  EXPECT_EQ(JobStdoutPath(job), "/home/alice/run/slurm-42.out");
  EXPECT_EQ(JobStderrPath(job), "/home/alice/run/slurm-42.out");
  EXPECT_EQ(JobStdinPath(job), "/dev/null");
  job.mutable_spec()->set_std_out("out-%j.log");
  EXPECT_EQ(JobStderrPath(job), "/home/alice/run/out-42.log") << "stderr goes with stdout";
  job.mutable_spec()->set_std_err("/tmp/err-%x");
  EXPECT_EQ(JobStderrPath(job), "/tmp/err-train");

  wire::JobRecord task = Job();
  task.set_array_job_id(40);
  task.set_array_task_id(17);
  EXPECT_EQ(JobStdoutPath(task), "/home/alice/run/slurm-40_17.out");
  EXPECT_EQ(ExpandJobStdioPattern("%A_%3a_%b", task), "/home/alice/run/40_017_7");

  wire::JobRecord allocation = Job();
  allocation.mutable_spec()->set_interactive(true);
  EXPECT_EQ(JobStdoutPath(allocation), "");
  EXPECT_EQ(JobStderrPath(allocation), "");
  EXPECT_EQ(JobStdinPath(allocation), "");
}

}  // namespace
}  // namespace rota::cli
