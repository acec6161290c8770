// GPU efficiency end to end: a real rotactld, rotadbd and two rotad whose
// fake GPUs play scripted readings (gpu/discovery/fake_gpu_sampler.h),
// sampled every second (JobAcctGatherFrequency=task=1). What a job's GPUs did
// comes back through accounting (sacct, seff); an XID on a GPU drains its
// node and requeues the job that failed on it.
#include <gtest/gtest.h>

#include <fstream>

#include "common/strings.h"
#include "tests/integration/accounted_cluster_test.h"

namespace rota {
namespace {

using testing::WaitUntil;

class GpuEfficiencyTest : public testing::AccountedClusterTest {
 protected:
  std::string MoreSettings() const override { return "JobAcctGatherFrequency=task=1\n"; }

  // Both GPUs of a node busy at 80%, 10 GiB of 80 used, drawing 300 W.
  std::vector<std::string> NodeEnvironment(int node) const override {
    std::string inventory;
    for (int g = 0; g < testing::NodedCluster::kGpusPerNode; ++g) {
      const std::string script = Script(node, g);
      cluster_->dir().Write(script, "0 Util=80 MemUsed=10G MemTotal=80G Power=300 Temp=50\n");
      inventory += "Type=a100 File=" + cluster_->Gpu(node, g) +
                   " Metrics=" + (cluster_->dir().path() / script).string() + "\n";
    }
    const std::string name = "gpus-" + std::to_string(node);
    cluster_->dir().Write(name, inventory);
    return {"ROTA_FAKE_GPUS=" + (cluster_->dir().path() / name).string()};
  }
  static std::string Script(int node, int gpu) {
    return "gpu-" + std::to_string(node) + "-" + std::to_string(gpu) + ".script";
  }

  // sacct's -P cells of `id` for `fields`, once its state is `state`.
  std::vector<std::string> SacctOnce(const std::string& id, const std::string& state,
                                     const std::string& fields) {
    std::string out;
    WaitUntil(
        [&] {
          out = cluster_->Run("sacct -n -P -j " + id + " -o State," + fields).out;
          return out.starts_with(state + "|");
        },
        std::chrono::seconds(40));
    const std::string first_line = out.substr(0, out.find('\n'));
    std::vector<std::string> cells;
    for (std::string_view c : Split(Trim(first_line), '|')) cells.emplace_back(c);
    return cells;
  }
};

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

}  // namespace
}  // namespace rota
