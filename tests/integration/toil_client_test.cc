// A real workflow client, unmodified, against a real Rota cluster: Debian's
// Toil 5.9 with its Slurm batch system drives rotactld, two rotad and rotadbd
// through the commands it really calls (docs/clients.md): scontrol show config
// (SchedulerTimeSlice, AcctGatherNodeFreq) for its polling, sbatch -J
// --export=ALL,... --mem --cpus-per-task -o -e --wrap, reading the id from the
// last word of the answer; squeue -h --format '%i %t %M' for the running jobs,
// sacct -n -j IDS --format JobIDRaw,State,ExitCode -P -S 1970-01-01 for how
// each ended (scontrol show job ID when sacct fails), scancel to kill.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;

constexpr char kToilWorker[] = "/usr/bin/_toil_worker";

class ToilClientTest : public testing::AccountedClusterTest {
 protected:
  void SetUp() override {
    // Installed by `make test` (scripts/install-deps.sh --with-clients).
    ASSERT_TRUE(std::filesystem::exists(kToilWorker))
        << kToilWorker << " is missing: run scripts/install-deps.sh --with-clients";
    AccountedClusterTest::SetUp();
  }
};

// Three jobs: two children in parallel (one with 2 cores), then a follow-on
// that joins what they returned; each runs as a Slurm job of its own, and
// so does the root.
constexpr char kWorkflow[] = R"(import os
import sys
from toil.common import Toil
from toil.job import Job


def work(job, name):
    return "%s job=%s cpus=%s" % (name, os.environ.get("SLURM_JOB_ID"),
                                  os.environ.get("SLURM_CPUS_ON_NODE"))


def join(job, parts):
    return "\n".join(parts + [work(job, "join")])


def root(job):
    first = job.addChildJobFn(work, "first", cores=2)
    second = job.addChildJobFn(work, "second", cores=1)
    return job.addFollowOnJobFn(join, [first.rv(), second.rv()]).rv()


if __name__ == "__main__":
    options = Job.Runner.getDefaultArgumentParser().parse_args()
    with Toil(options) as toil:
        result = toil.start(Job.wrapJobFn(root))
    with open(sys.argv[0] + ".out", "w") as out:
        out.write(result + "\n")
)";

TEST_F(ToilClientTest, AWorkflowOfParallelJobsAndAFollowOnRunsToTheEnd) {
  const std::string dir = cluster_->work_dir() + "/toil";
  std::filesystem::create_directories(dir + "/work");
  std::ofstream(dir + "/workflow.py") << kWorkflow;
  // Toil asks 2 GiB per job unless told; the test nodes have 2000 MB.
  CommandResult run = cluster_->Run(
      "sh -c 'cd " + dir + " && exec timeout 300 /usr/bin/python3 workflow.py file:" + dir +
      "/jobstore --batchSystem slurm --workDir " + dir +
      "/work --defaultMemory 400M --defaultDisk 1M --defaultCores 1 --statePollingWait 1"
      " --retryCount 0 --disableCaching --logInfo'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::string out = testing::ReadFileText(dir + "/workflow.py.out");
  std::vector<std::string_view> lines = Split(Trim(out), '\n');
  ASSERT_EQ(lines.size(), 3u) << out << run.out;
  EXPECT_TRUE(lines[0].starts_with("first job=")) << out;
  EXPECT_TRUE(lines[0].ends_with(" cpus=2")) << out << "cores=2 is --cpus-per-task=2";
  EXPECT_TRUE(lines[1].starts_with("second job=")) << out;
  EXPECT_TRUE(lines[2].starts_with("join job=")) << out;
  EXPECT_NE(lines[0].substr(0, lines[0].find(" cpus")), lines[2].substr(0, lines[2].find(" cpus")))
      << out;

  // Every job Toil submitted, as accounting keeps them: named by Toil, each
  // completed.
  const std::string sacct = SacctOnceItHasRows("-X -n -P -o JobName,State", 4, "|COMPLETED");
  std::vector<std::string_view> rows = Split(Trim(sacct), '\n');
  ASSERT_EQ(rows.size(), 4u) << sacct;
  for (std::string_view row : rows) {
    EXPECT_TRUE(row.starts_with("toil_job_")) << sacct;
    EXPECT_TRUE(row.ends_with("|COMPLETED")) << sacct;
  }
}

}  // namespace
}  // namespace rota
