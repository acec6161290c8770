// A real workflow client, unmodified, against a real Rota cluster: Debian's
// ipyparallel 7 starts its engines with its Slurm launcher (docs/clients.md).
// The launcher writes a batch script (its template plus "#SBATCH
// --ntasks=N"), submits it with `sbatch FILE` and takes the first number of
// the answer as the job id; the script runs `srun ipengine ...`, one engine
// per task, which connect back to a controller on this host; stopping the
// cluster is `scancel JOBID`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::RunShell;
using testing::WaitUntil;

constexpr char kPython[] = "/usr/bin/python3";

// Starts a cluster of two engines through Slurm, asks each engine which job
// and task it runs in, and stops the cluster. Prints "TASK JOB PROCID" lines
// and "stopped".
constexpr char kDriver[] = R"py(
import os, sys
import ipyparallel as ipp

cluster = ipp.Cluster(
    engine_launcher_class="slurm", n=2, controller_ip="127.0.0.1", cluster_id="rota",
    profile_dir=os.path.join(os.environ["WORK"], "profile"), log_level=10)
client = cluster.start_and_connect_sync()
client.wait_for_engines(2, timeout=150)
def placement():
    import os  # Runs in the engine, which has its own globals.
    return os.environ["SLURM_JOB_ID"], os.environ["SLURM_PROCID"]
where = client[:].apply_sync(placement)
for job, procid in sorted(where, key=lambda w: w[1]):
    print("TASK", job, procid, flush=True)
cluster.stop_cluster_sync()
print("stopped", flush=True)
)py";

class IpyparallelClientTest : public testing::TwoNodeClusterTest {
 protected:
  void SetUp() override {
    // Installed by `make test` (scripts/install-deps.sh --with-clients).
    ASSERT_EQ(RunShell(std::string(kPython) + " -c 'import ipyparallel' 2>&1").exit_code, 0)
        << "python3-ipyparallel is missing: run scripts/install-deps.sh --with-clients";
    TwoNodeClusterTest::SetUp();
  }
};

TEST_F(IpyparallelClientTest, EnginesStartedThroughSlurmRunAndAreStopped) {
  const std::string work = cluster_->work_dir() + "/ipp";
  std::filesystem::create_directories(work);
  std::ofstream(work + "/driver.py") << kDriver;
  // The cluster's SLURM_CONF and PATH reach the launcher (and the job,
  // --export=ALL) through the sh; HOME keeps IPython's files in the test.
  // The launcher's own template asks for no memory: the engines get theirs
  // from SBATCH_MEM_PER_CPU, as a user of a cluster with memory limits would
  // give it (this one's default is 100 MB per CPU).
  CommandResult run = cluster_->Run(
      "sh -c 'cd " + work + " && WORK=" + work + " HOME=" + work + " IPYTHONDIR=" + work +
      "/ipython SBATCH_MEM_PER_CPU=800 exec timeout 200 " + kPython + " driver.py'");
  // On failure, what the engines' job wrote too.
  auto job_output = [&] {
    return RunShell("find " + work + " -name 'slurm-*.out' -exec tail -n 30 {} + 2>&1; find " +
                    work + " -name '*.sbatch' -exec cat {} +")
        .out;
  };
  ASSERT_EQ(run.exit_code, 0) << run.out << job_output();
  // Both engines ran as tasks 0 and 1 of one Slurm job.
  std::vector<std::string> tasks;
  for (std::string_view line : Split(run.out, '\n')) {
    if (line.starts_with("TASK ")) tasks.emplace_back(line);
  }
  ASSERT_EQ(tasks.size(), 2u) << run.out;
  std::vector<std::string_view> first = Split(tasks[0], ' ');
  std::vector<std::string_view> second = Split(tasks[1], ' ');
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(first[1], second[1]) << "one job for the engine set";
  EXPECT_EQ(first[2], "0");
  EXPECT_EQ(second[2], "1");
  EXPECT_NE(run.out.find("stopped"), std::string::npos) << run.out;
  // Stopping the cluster cancelled the job.
  const std::string job(first[1]);
  EXPECT_TRUE(WaitForState(job, "CANCELLED")) << cluster_->Run("squeue -t all").out;
}

}  // namespace
}  // namespace rota
