// rotactld under priority/multifactor, driven by the built sprio over loopback.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

// The weights of the Slurm capture (slurm-observed/sprio.txt) on the test
// cluster: 4 nodes of 8 CPUs and 4 GPUs; a second partition with factor 100.
constexpr char kMultifactor[] =
    "PriorityType=priority/multifactor\n"
    "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightJobSize=1000\n"
    "PriorityWeightPartition=1000\nPriorityWeightQOS=2000\nPriorityWeightTRES=gres/gpu=1000\n"
    "PriorityMaxAge=7-0\n"
    "PartitionName=short Nodes=ALL MaxTime=00:30:00 PriorityJobFactor=100\n";

TEST(PriorityIntegrationTest, SprioShowsEachFactorAndTheWeights) {
  ControllerProcess ctld(kMultifactor);
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  // No node daemon registers: the jobs stay pending.
  ASSERT_EQ(ctld.Run("sbatch --wrap=true").exit_code, 0);
  ASSERT_EQ(ctld.Run("sbatch -p short --gres=gpu:2 --wrap=true").exit_code, 0);
  ASSERT_EQ(ctld.Run("sbatch --nice=100 --wrap=true").exit_code, 0);

  // Job size (1/4 + 1/32) / 2 x 1000 = 140.6; partition 10 or 1000; 2 of 16
  // GPUs x 1000 = 125; fair-share 10000 (the only user, no usage yet: factor
  // 1); the priority is the truncated sum less nice.
  CommandResult r = ctld.Run("sprio", false);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS                 TRES\n"
            "              1 batch          10150          0          0      10000        141      "
            "   10          0                     \n"
            "              2 short          11265          0          0      10000        141      "
            " 1000          0         gres/gpu=125\n"
            "              3 batch          10050          0          0      10000        141      "
            "   10          0                     \n")
      << ctld.Log();

  r = ctld.Run("sprio -w", false);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  "
            "PARTITION        QOS                 TRES\n"
            "        Weights                               1       1000      10000       1000      "
            " 1000       2000        gres/gpu=1000\n");

  EXPECT_EQ(ctld.Run("sprio -h -j 2 -o %i/%r/%Y/%T", false).out, "2/short/11265/gres/gpu=125\n");
  EXPECT_EQ(ctld.Run("sprio -h -p batch -o %i", false).out, "1\n3\n");
  EXPECT_EQ(ctld.Run("sprio -h -u nobody-here -o %i", false).out, "");
  r = ctld.Run("sprio -l -h -j 3", false);
  EXPECT_NE(r.out.find("         100 "), std::string::npos) << r.out;  // NICE column.

  // The main pass runs in priority order: the scheduler sees job 2 first. An
  // administrator's value shows as set.
  ASSERT_EQ(ctld.Run("scontrol update JobId=3 Priority=99999").exit_code, 0);
  EXPECT_EQ(ctld.Run("sprio -h -j 3 -o %Y", false).out, "99999\n");
}

// rota why over the wire: the causes, the queue ahead with its factors, the
// nodes, in words and as JSON; an unknown job is an error.
TEST(PriorityIntegrationTest, RotaWhyExplainsAPendingJob) {
  ControllerProcess ctld(kMultifactor);
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  // No node daemon registers: every node is unusable and the jobs wait.
  ASSERT_EQ(ctld.Run("sbatch -p short --gres=gpu:2 --wrap=true").exit_code, 0);
  ASSERT_EQ(ctld.Run("sbatch --wrap=true").exit_code, 0);
  ASSERT_EQ(ctld.Run("sbatch -p short --wrap=true").exit_code, 0);
  // Let a scheduling pass give the jobs their reasons.
  std::string reason;
  for (int i = 0; i < 100 && reason.empty(); ++i) {
    reason = ctld.Run("squeue -h -j 3 -o %r", false).out;
    if (reason == "None\n" || reason.empty()) {
      reason.clear();
      usleep(50'000);
    }
  }

  CommandResult r = ctld.Run("rota why 3", false);
  ASSERT_EQ(r.exit_code, 0) << r.out << ctld.Log();
  EXPECT_NE(r.out.find("Job 3 is PENDING in partition short"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("it is 2 of 2 in its partition's queue"), std::string::npos) << r.out;
  // Job 1 is ahead (more TRES priority), with its factors.
  EXPECT_NE(r.out.find("the nearest is job 1 of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tres=gres/gpu=125"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("age=0 "), std::string::npos) << r.out;  // Zero factors are left out
  EXPECT_NE(r.out.find("4 are not usable"), std::string::npos) << r.out;

  r = ctld.Run("rota why --json 2", false);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"job_id\": 2,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"partition\": \"batch\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"fits_when_idle\": true"), std::string::npos) << r.out;

  r = ctld.Run("rota why 99");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("rota why: error: Invalid job id specified"), std::string::npos) << r.out;
  r = ctld.Run("rota why x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Invalid job id: x"), std::string::npos) << r.out;
}

TEST(PriorityIntegrationTest, SprioRefusesUnderPriorityBasic) {
  ControllerProcess ctld;
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  CommandResult r = ctld.Run("sprio");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("priority/basic"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rota
