// GPU efficiency end to end: a real rotactld, rotadbd and two rotad whose
// fake GPUs play scripted readings (gpu/discovery/fake_gpu_sampler.h),
// sampled every second (JobAcctGatherFrequency=task=1). What a job's GPUs did
// comes back through accounting (sacct, seff); an XID on a GPU drains its
// node and requeues the job that failed on it.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "common/strings.h"
#include "tests/integration/scripted_gpus_cluster_test.h"

namespace rota {
namespace {

using testing::WaitUntil;

class GpuEfficiencyTest : public testing::ScriptedGpusClusterTest {};

// "MM:SS.mmm", "HH:MM:SS" or "D-HH:MM:SS" in seconds; -1 when it does not parse.
double SacctSeconds(std::string_view text) {
  double days = 0;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    std::optional<uint64_t> d = ParseUint(text.substr(0, dash));
    if (!d) return -1;
    days = static_cast<double>(*d);
    text = text.substr(dash + 1);
  }
  double total = 0;
  for (std::string_view part : Split(text, ':')) {
    std::optional<double> v = ParseDouble(part);
    if (!v) return -1;
    total = total * 60 + *v;
  }
  return days * 86400 + total;
}

TEST_F(GpuEfficiencyTest, AJobsGpuFiguresReachSacctAndSeff) {
  // Three seconds of a busy shell loop on one GPU.
  const std::string job =
      SubmitScript("-N1 -w " + cluster_->Node(1) + " --gpus=1",
                   "end=$(( $(date +%s) + 3 )); while [ $(date +%s) -lt $end ]; do :; done\n");
  ASSERT_FALSE(job.empty());
  std::vector<std::string> batch =
      SacctOnce(job + ".batch", "COMPLETED",
                "TRESUsageInMax,TRESUsageInAve,ConsumedEnergyRaw,TotalCPU,UserCPU");
  ASSERT_EQ(batch.size(), 6u) << cluster_->Run("sacct -j " + job).out;
  for (const std::string& tres : {batch[1], batch[2]}) {
    EXPECT_NE(tres.find("gres/gpumem=10G"), std::string::npos) << tres;
    EXPECT_NE(tres.find("gres/gpuutil=80"), std::string::npos) << tres;
    EXPECT_NE(tres.find("energy="), std::string::npos) << tres;
  }
  // 300 W for the job's three seconds or so, sampled every second.
  std::optional<uint64_t> joules = ParseUint(batch[3]);
  ASSERT_TRUE(joules.has_value()) << batch[3];
  EXPECT_GE(*joules, 600u);
  EXPECT_LE(*joules, 3000u);
  // The loop spent much of its two to three seconds on a CPU (less when
  // the tests beside it share the host's CPUs).
  EXPECT_GE(SacctSeconds(batch[4]), 0.5) << batch[4];
  EXPECT_LE(SacctSeconds(batch[4]), 4.0) << batch[4];
  EXPECT_GE(SacctSeconds(batch[5]), 0.3) << batch[5];

  // The job's line sums its steps.
  std::vector<std::string> whole = SacctOnce(job, "COMPLETED", "TotalCPU,ConsumedEnergyRaw");
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[1], batch[4]);
  EXPECT_EQ(whole[2], batch[3]);

  testing::CommandResult seff = cluster_->Run("seff " + job);
  EXPECT_EQ(seff.exit_code, 0) << seff.out;
  EXPECT_NE(seff.out.find("State: COMPLETED (exit code 0)"), std::string::npos) << seff.out;
  EXPECT_NE(seff.out.find("CPU Efficiency: "), std::string::npos) << seff.out;
  EXPECT_NE(seff.out.find("GPU Utilization: 80.00%"), std::string::npos) << seff.out;
  EXPECT_NE(seff.out.find("GPU Memory Utilized: 10.00 GB"), std::string::npos) << seff.out;
}

TEST_F(GpuEfficiencyTest, AnSrunStepAcrossNodesSumsItsGpusOnEachNode) {
  // One GPU per node for the step, of the job's two per node.
  const std::string job =
      SubmitScript("-N2 --gpus-per-node=2", "srun -N2 -n2 --gpus-per-node=1 sleep 3\n");
  ASSERT_FALSE(job.empty());
  std::vector<std::string> step =
      SacctOnce(job + ".0", "COMPLETED", "TRESUsageInMax,TRESUsageInAve,ConsumedEnergyRaw");
  ASSERT_EQ(step.size(), 4u) << cluster_->Run("sacct -j " + job).out;
  // 80% and 10 GiB on each of the two nodes' GPU.
  EXPECT_NE(step[1].find("gres/gpumem=20G"), std::string::npos) << step[1];
  EXPECT_NE(step[1].find("gres/gpuutil=160"), std::string::npos) << step[1];
  EXPECT_NE(step[2].find("gres/gpuutil=160"), std::string::npos) << step[2];
  std::optional<uint64_t> joules = ParseUint(step[3]);
  ASSERT_TRUE(joules.has_value()) << step[3];
  EXPECT_GE(*joules, 2 * 300u * 2) << "two GPUs at 300 W for about three seconds";
  // The batch step measured both GPUs of the first node.
  std::vector<std::string> batch = SacctOnce(job + ".batch", "COMPLETED", "TRESUsageInMax");
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_NE(batch[1].find("gres/gpuutil=160"), std::string::npos) << batch[1];
}

TEST_F(GpuEfficiencyTest, AnXidDrainsTheNodeAndRequeuesTheJobThatFailedOnIt) {
  const std::string release = cluster_->work_dir() + "/release";
  const std::string job =
      SubmitScript("-N1 -w " + cluster_->Node(1) + " --gpus=2 --requeue",
                   "while [ ! -e " + release + " ]; do sleep 0.2; done\nexit 3\n");
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(WaitForState(job, "RUNNING"));
  // The driver reports XID 79 (fallen off the bus) on GPU 1 of node 1.
  std::ofstream((cluster_->dir().path() / Script(1, 1)).string(), std::ios::app)
      << "0 Event=xid:79\n";
  std::string reason;
  ASSERT_TRUE(WaitUntil(
      [&] {
        reason = cluster_->Run("sinfo -h -R -n " + cluster_->Node(1) + " -o %E").out;
        return reason.find("XID 79") != std::string::npos;
      },
      std::chrono::seconds(20)))
      << reason << cluster_->Run("sinfo -R").out;
  EXPECT_EQ(Trim(reason), "GPU 1 (" + cluster_->Gpu(1, 1) + "): XID 79");
  // The job still runs; once it fails, it goes back to the queue rather
  // than ending FAILED, and waits for its node.
  std::ofstream(release) << "go\n";
  ASSERT_TRUE(WaitUntil(
      [&] {
        return cluster_->Run("scontrol show job " + job).out.find("Restarts=1") !=
               std::string::npos;
      },
      std::chrono::seconds(30)))
      << cluster_->Run("scontrol show job " + job).out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + job).out), "PENDING");
  EXPECT_NE(cluster_->Run("sinfo -h -n " + cluster_->Node(1) + " -o %t").out.find("drain"),
            std::string::npos);
  cluster_->Run("scancel " + job);
}

TEST_F(GpuEfficiencyTest, AnXidOnAnIdleGpuDrainsTheNodeAndNothingElse) {
  std::ofstream((cluster_->dir().path() / Script(2, 0)).string(), std::ios::app) << "0 Event=ecc\n";
  std::string reason;
  EXPECT_TRUE(WaitUntil(
      [&] {
        reason = Trim(cluster_->Run("sinfo -h -R -n " + cluster_->Node(2) + " -o %E").out);
        return !reason.empty();
      },
      std::chrono::seconds(20)));
  EXPECT_EQ(reason, "GPU 0 (" + cluster_->Gpu(2, 0) + "): uncorrectable ECC error");
  EXPECT_EQ(cluster_->Run("sinfo -h -R -n " + cluster_->Node(1) + " -o %E").out, "");
}

// sstat while the job runs: the batch step's CPU time so far from its cage,
// and its GPU's figures from rotad's samples.
TEST_F(GpuEfficiencyTest, SstatShowsARunningBatchStepsCpuAndGpuFiguresSoFar) {
  const std::string job =
      SubmitScript("-N1 -w " + cluster_->Node(1) + " --gpus=1",
                   "end=$(( $(date +%s) + 8 )); while [ $(date +%s) -lt $end ]; do :; done\n");
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(WaitForState(job, "RUNNING"));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  testing::CommandResult sstat;
  std::vector<std::string> cells;
  ASSERT_TRUE(WaitUntil(
      [&] {
        sstat =
            cluster_->Run("sstat -n -P -j " + job + ".batch -o JobID,AveCPU,MaxRSS,TRESUsageInAve");
        cells.clear();
        for (std::string_view c : Split(Trim(sstat.out), '|')) cells.emplace_back(c);
        return cells.size() == 4 && cells[3].find("gres/gpuutil=80") != std::string::npos;
      },
      std::chrono::seconds(5)))
      << sstat.out;
  EXPECT_EQ(sstat.exit_code, 0);
  EXPECT_EQ(cells[0], job + ".batch");
  EXPECT_GT(SacctSeconds(cells[1]), 0.0) << cells[1];
  EXPECT_NE(cells[3].find("gres/gpumem=10G"), std::string::npos) << cells[3];
  EXPECT_NE(cells[3].find("cpu="), std::string::npos) << cells[3];

  // Without a step: the batch step, its only one; Slurm's default fields.
  testing::CommandResult whole = cluster_->Run("sstat -j " + job);
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  EXPECT_NE(whole.out.find("MaxVMSize"), std::string::npos) << whole.out;
  EXPECT_NE(whole.out.find(job + ".batch"), std::string::npos) << whole.out;
  cluster_->Run("scancel " + job);
}

// An srun step's figures come from its own cage and GPU watch on its node.
TEST_F(GpuEfficiencyTest, SstatShowsARunningSrunStep) {
  const std::string job = SubmitScript("-N1 -w " + cluster_->Node(1) + " --gpus=1",
                                       "srun -n1 --gpus=1 sh -c 'end=$(( $(date +%s) + 8 )); "
                                       "while [ $(date +%s) -lt $end ]; do :; done'\n");
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(WaitForState(job, "RUNNING"));
  testing::CommandResult sstat;
  ASSERT_TRUE(WaitUntil(
      [&] {
        sstat = cluster_->Run("sstat -n -P -j " + job + ".0 -o JobID,NTasks,TRESUsageInMax");
        return sstat.out.find("gres/gpuutil=80") != std::string::npos;
      },
      std::chrono::seconds(15)))
      << sstat.out;
  EXPECT_TRUE(sstat.out.starts_with(job + ".0|1|")) << sstat.out;
  // -a: the batch step too.
  testing::CommandResult all = cluster_->Run("sstat -n -P -a -j " + job + " -o JobID");
  EXPECT_NE(all.out.find(job + ".batch\n"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find(job + ".0\n"), std::string::npos) << all.out;
  cluster_->Run("scancel " + job);
}

}  // namespace
}  // namespace rota
