// slurm.conf's job defaults and limits end to end on the two-node cluster
// (real rotactld, two rotad, sbatch, squeue, scontrol): OverTimeLimit lets a
// job run past its time limit, Licenses make a job wait, DefCpuPerGPU and
// DefMemPerGPU shape a GPU job's allocation, MaxCPUsPerNode spreads a
// partition's jobs, EnforcePartLimits refuses at submission, JobRequeue sets
// the requeue default.
#include <gtest/gtest.h>

#include <string>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ReadFileText;
using testing::WaitUntil;

class JobLimitsTest : public testing::TwoNodeClusterTest {
 protected:
  // Each node: 2 CPUs, 2000 MB, 2 GPUs.
  std::string Settings() const override {
    return "OverTimeLimit=UNLIMITED\n"
           "Licenses=fluent:1\n"
           "DefCpuPerGPU=2\n"
           "DefMemPerGPU=300\n"
           "EnforcePartLimits=ALL\n"
           "JobRequeue=0\n"
           "PartitionName=capped Nodes=ALL MaxCPUsPerNode=1\n";
  }
  CommandResult Sbatch(const std::string& options) {
    return cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " " + options);
  }
  std::string SubmitOk(const std::string& options) {
    CommandResult r = Sbatch(options);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }
  std::string Squeue(const std::string& job, const std::string& format) {
    return std::string(Trim(cluster_->Run("squeue -h -t all -o '" + format + "' -j " + job).out));
  }
  bool WaitForState(const std::string& job, const std::string& state) {
    return WaitUntil([&] { return Squeue(job, "%T") == state; }, std::chrono::seconds(40));
  }
  std::string ShowJob(const std::string& job) {
    return cluster_->Run("scontrol show job -d " + job).out;
  }
};

TEST_F(JobLimitsTest, OverTimeLimitUnlimitedLetsAJobFinishPastItsLimit) {
  // A 2-second limit is a minute, as in Slurm; lowered to none at all while
  // the 5-second job runs: without OverTimeLimit it would end TIMEOUT.
  std::string job = SubmitOk("--time=0:02 --wrap='sleep 5; echo finished'");
  ASSERT_TRUE(WaitForState(job, "RUNNING")) << Squeue(job, "%T %r");
  EXPECT_NE(ShowJob(job).find("TimeLimit=00:01:00"), std::string::npos) << ShowJob(job);
  CommandResult lowered = cluster_->Run("scontrol update JobId=" + job + " TimeLimit=0");
  ASSERT_EQ(lowered.exit_code, 0) << lowered.out;
  EXPECT_NE(ShowJob(job).find("TimeLimit=00:00:00"), std::string::npos) << ShowJob(job);
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Squeue(job, "%T %r");
  EXPECT_EQ(ReadFileText(cluster_->work_dir() + "/slurm-" + job + ".out"), "finished\n");
}

TEST_F(JobLimitsTest, AJobWaitsForLicensesAndOthersGoAhead) {
  std::string holder = SubmitOk("-L fluent --wrap='sleep 6'");
  ASSERT_TRUE(WaitForState(holder, "RUNNING"));
  std::string waiting = SubmitOk("--licenses=fluent:1 --wrap=true");
  std::string free = SubmitOk("--wrap=true");
  EXPECT_TRUE(WaitUntil([&] { return Squeue(waiting, "%T %r") == "PENDING Licenses"; }))
      << Squeue(waiting, "%T %r");
  // A job without licenses is not held back by it.
  EXPECT_TRUE(WaitForState(free, "COMPLETED")) << Squeue(free, "%T %r");
  EXPECT_EQ(Squeue(holder, "%T"), "RUNNING");
  EXPECT_EQ(cluster_->Run("scontrol show licenses").out,
            "LicenseName=fluent\n    Total=1 Used=1 Free=0 Reserved=0 Remote=no\n");
  EXPECT_NE(ShowJob(holder).find("Licenses=fluent:1 "), std::string::npos) << ShowJob(holder);
  // squeue -L: the jobs that ask for the license, not the one that does not.
  const std::string with_license = cluster_->Run("squeue -h -t all -L fluent -o %i").out;
  EXPECT_NE(with_license.find(holder + "\n"), std::string::npos) << with_license;
  EXPECT_NE(with_license.find(waiting + "\n"), std::string::npos) << with_license;
  EXPECT_EQ(with_license.find(free + "\n"), std::string::npos) << with_license;
  EXPECT_TRUE(WaitForState(waiting, "COMPLETED")) << Squeue(waiting, "%T %r");

  CommandResult too_many = Sbatch("-L fluent:2 --wrap=true");
  EXPECT_NE(too_many.exit_code, 0);
  EXPECT_NE(too_many.out.find("Batch job submission failed: Invalid license specification"),
            std::string::npos)
      << too_many.out;
}

TEST_F(JobLimitsTest, GpuJobWithoutCpuOrMemoryOptionsGetsTheDefaults) {
  std::string job = SubmitOk("--gres=gpu:1 --wrap='sleep 5'");
  ASSERT_TRUE(WaitForState(job, "RUNNING")) << Squeue(job, "%T %r");
  std::string shown = ShowJob(job);
  EXPECT_NE(shown.find("NumCPUs=2 "), std::string::npos) << shown;  // DefCpuPerGPU=2
  EXPECT_NE(shown.find(" Mem=300 "), std::string::npos) << shown;   // DefMemPerGPU=300
  // Defaults, not what the job asked for: as in Slurm, no CpusPerTres/MemPerTres.
  EXPECT_EQ(shown.find("PerTres="), std::string::npos) << shown;
  // A job that says what it wants keeps it.
  std::string own = SubmitOk("--gres=gpu:1 --cpus-per-gpu=1 --mem-per-gpu=200 --wrap='sleep 5'");
  ASSERT_TRUE(WaitForState(own, "RUNNING")) << Squeue(own, "%T %r");
  shown = ShowJob(own);
  EXPECT_NE(shown.find("NumCPUs=1 "), std::string::npos) << shown;
  EXPECT_NE(shown.find(" Mem=200 "), std::string::npos) << shown;
  EXPECT_NE(shown.find("CpusPerTres=gres:gpu:1\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("MemPerTres=gres:gpu:200\n"), std::string::npos) << shown;
}

TEST_F(JobLimitsTest, MaxCpusPerNodeSpreadsAPartitionsJobs) {
  std::string a = SubmitOk("-p capped --wrap='sleep 8'");
  std::string b = SubmitOk("-p capped --wrap='sleep 8'");
  std::string c = SubmitOk("-p capped --wrap='sleep 8'");
  ASSERT_TRUE(WaitForState(a, "RUNNING")) << Squeue(a, "%T %r");
  ASSERT_TRUE(WaitForState(b, "RUNNING")) << Squeue(b, "%T %r");
  // One CPU of each node for the partition: one job each, the third waits
  // though each node has a CPU free.
  EXPECT_NE(Squeue(a, "%N"), Squeue(b, "%N"));
  EXPECT_TRUE(WaitUntil([&] { return Squeue(c, "%T %r") == "PENDING Resources"; }))
      << Squeue(c, "%T %r");
  std::string other = SubmitOk("-c1 --wrap=true");  // The default partition is not capped
  EXPECT_TRUE(WaitForState(other, "COMPLETED")) << Squeue(other, "%T %r");

  CommandResult wide = Sbatch("-p capped -c2 --wrap=true");
  EXPECT_NE(wide.exit_code, 0);
  EXPECT_NE(wide.out.find("Requested node configuration is not available"), std::string::npos)
      << wide.out;
}

TEST_F(JobLimitsTest, EnforcePartLimitsRefusesAJobBeyondItsPartition) {
  CommandResult r = Sbatch("--time=2-00:00:00 --wrap=true");  // MaxTime is a day
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("Batch job submission failed: Requested time limit is invalid (missing or "
                       "exceeds some limit)"),
            std::string::npos)
      << r.out;
}

TEST_F(JobLimitsTest, JobRequeueZeroMakesJobsNotRequeueable) {
  std::string plain = SubmitOk("--hold --wrap=true");
  std::string asked = SubmitOk("--hold --requeue --wrap=true");
  EXPECT_NE(ShowJob(plain).find("Requeue=0 "), std::string::npos) << ShowJob(plain);
  EXPECT_NE(ShowJob(asked).find("Requeue=1 "), std::string::npos) << ShowJob(asked);
  cluster_->Run("scancel " + plain + " " + asked);
}

}  // namespace
}  // namespace rota
