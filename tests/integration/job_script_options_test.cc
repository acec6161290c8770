// The options workflow tools write into job scripts, through the real
// commands, rotactld and rotadbd: a submitit-style script is taken whole, its
// wckey comes back from squeue, scontrol and sacct; --priority,
// --kill-on-invalid-dep and the per-node minimums act in the controller.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/strings.h"
#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota {
namespace {

using testing::AccountingConf;
using testing::CommandResult;
using testing::ControllerProcess;
using testing::DbdProcess;

class JobScriptOptionsTest : public ::testing::Test {
 protected:
  JobScriptOptionsTest()
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_) +
              "SchedulerParameters=kill_invalid_depend\nTrackWCKey=yes\n"
              "AccountingStoreFlags=job_comment,job_script,job_env\n"),
        dbd_(ctld_, dbd_port_) {}

  void SetUp() override {
    ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
    testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  }
  std::string Submit(const std::string& args) {
    CommandResult r = ctld_.Run("sbatch --parsable " + args);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
};

TEST_F(JobScriptOptionsTest, ASubmititStyleScriptIsTakenAndItsWckeyShownEverywhere) {
  const std::string script = ctld_.dir().Write("submitit.sh",
                                               "#!/bin/bash\n"
                                               "#SBATCH --job-name=submitit\n"
                                               "#SBATCH --wckey=submitit\n"
                                               "#SBATCH --mem=2GB\n"
                                               "#SBATCH --tasks-per-node=1\n"
                                               "#SBATCH --signal=USR2@90\n"
                                               "#SBATCH --requeue\n"
                                               "#SBATCH --hint=nomultithread\n"
                                               "#SBATCH --distribution=block\n"
                                               "#SBATCH --cores-per-socket=4\n"
                                               "#SBATCH --open-mode=append\n"
                                               "#SBATCH --output=logs/%j_%t_log.out\n"
                                               "true\n");
  const std::string id = Submit(script);
  ASSERT_TRUE(testing::WaitForJobState(ctld_, id, "RUNNING")) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("squeue -h -j " + id + " -o '%w|%z|%I|%m'").out, "submitit|*:4:*|4|2G\n");
  EXPECT_EQ(ctld_.Run("squeue -h -j " + id + " -O WCKey:12,SCT").out,
            "submitit    *:4:*               \n");
  const std::string shown = ctld_.Run("scontrol show job " + id).out;
  EXPECT_NE(shown.find("ReqB:S:C:T=0:0:4:*"), std::string::npos) << shown;
  // As Slurm shows them: what the listing knows expanded (%j), what only the
  // node knows (%t) as written, under the working directory.
  for (const char* stream : {"StdOut=/", "StdErr=/"}) {
    const size_t at = shown.find(stream);
    ASSERT_NE(at, std::string::npos) << shown;
    const std::string line = shown.substr(at, shown.find('\n', at) - at);
    EXPECT_TRUE(line.ends_with("/logs/" + id + "_%t_log.out")) << line;
  }
  testing::ReportJobExit(ctld_, static_cast<uint32_t>(*ParseUint(id)), 0);
  const std::string expected = id + "|submitit|COMPLETED\n";
  EXPECT_EQ(testing::SacctUntil(ctld_, "-X -n -P -o JobID,WCKey,State -j " + id, expected),
            expected)
      << ctld_.Log() << dbd_.Log();
}

// sacct's other fields and filters, through rotactld and rotadbd: what
// submitted the job and how, Slurm's long list and field list, and the
// filters by size and limit.
TEST_F(JobScriptOptionsTest, SacctShowsTheSubmitLineAndTakesTheLongListAndSizeFilters) {
  const std::string id = Submit("-N1 -t 30 --comment=calibration --wrap=true");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, id, "RUNNING")) << ctld_.Log();
  testing::ReportJobExit(ctld_, static_cast<uint32_t>(*ParseUint(id)), 0);
  const std::string expected =
      id + "|sbatch --parsable -N1 -t 30 --comment=calibration --wrap=true|calibration|30|1\n";
  EXPECT_EQ(
      testing::SacctUntil(
          ctld_, "-X -n -P -o JobID,SubmitLine,Comment,TimelimitRaw,ReqNodes -j " + id, expected),
      expected)
      << ctld_.Log() << dbd_.Log();

  CommandResult long_list = ctld_.Run("sacct -X -n -P -l -j " + id);
  EXPECT_EQ(long_list.exit_code, 0) << long_list.out;
  EXPECT_EQ(std::count(long_list.out.begin(), long_list.out.end(), '|'), 53) << long_list.out;
  EXPECT_TRUE(long_list.out.starts_with(id + "|" + id + "|wrap|")) << long_list.out;
  CommandResult help = ctld_.Run("sacct -e");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(help.out.starts_with("Account             AdminComment")) << help.out;

  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -i 1 -k 0:30 -j " + id).out, id + "\n");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -i 2-4 -j " + id).out, "");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -k 1:00:00 -j " + id).out, "");
  CommandResult bad = ctld_.Run("sacct -i two");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "sacct: fatal: invalid --nnodes value: two\n");
}

TEST_F(JobScriptOptionsTest, SacctGivesTheBatchScriptAndEnvironmentOfANamedJob) {
  const std::string script = "#!/bin/sh\n#SBATCH -t 5\necho 'kept whole'\n";
  const std::string path = ctld_.dir().Write("kept.sh", script);
  const std::string id = Submit("--export=ALL,ROTA_MARK=one\\ two " + path);
  ASSERT_TRUE(testing::WaitForJobState(ctld_, id, "RUNNING")) << ctld_.Log();
  testing::ReportJobExit(ctld_, static_cast<uint32_t>(*ParseUint(id)), 0);
  const std::string rule(80, '-');
  const std::string expected = "Batch Script for " + id + "\n" + rule + "\n" + script + "\n";
  // Kept from the start record through the end record that followed it.
  EXPECT_EQ(testing::SacctUntil(ctld_, "-X -n -P -o JobID,State -j " + id, id + "|COMPLETED\n"),
            id + "|COMPLETED\n");
  EXPECT_EQ(ctld_.Run("sacct -B -j " + id).out, expected) << dbd_.Log();
  CommandResult env = ctld_.Run("sacct --env-vars -j " + id);
  EXPECT_TRUE(env.out.starts_with("Environment used for " + id + " (must be batch to display)\n" +
                                  rule + "\n"))
      << env.out;
  EXPECT_NE(env.out.find("\nROTA_MARK=one two\n"), std::string::npos) << env.out;

  CommandResult bad = ctld_.Run("sacct -B");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out,
            "sacct: fatal: When requesting job scripts you must also request specific jobs with "
            "the '-j' option.\n");
  bad = ctld_.Run("sacct -B --env-vars -j " + id);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out,
            "sacct: fatal: Options --batch-script and --env-vars are mutually exclusive\n");
}

TEST_F(JobScriptOptionsTest, PriorityKillOnInvalidDependencyAndNodeMinimums) {
  // The test runs as root, an administrator: --priority is taken as given.
  const std::string first = Submit("--priority=7000 --wrap=true");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, first, "RUNNING"));
  EXPECT_EQ(ctld_.Run("squeue -h -j " + first + " -o %Q").out, "7000\n");

  // Never satisfiable once the first job succeeds: cancelled under the
  // cluster's kill_invalid_depend unless the job says no.
  const std::string killed = Submit("--dependency=afternotok:" + first + " --wrap=true");
  const std::string kept =
      Submit("--kill-on-invalid-dep=no --dependency=afternotok:" + first + " --wrap=true");
  testing::ReportJobExit(ctld_, static_cast<uint32_t>(*ParseUint(first)), 0);
  EXPECT_TRUE(testing::WaitForJobState(ctld_, killed, "CANCELLED")) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("squeue -h -j " + kept + " -o '%T|%r'").out,
            "PENDING|DependencyNeverSatisfied\n");

  // No node has 100 TB of TmpDisk or 64 CPUs.
  for (const char* ask : {"--tmp=100T", "--mincpus=64"}) {
    CommandResult r = ctld_.Run(std::string("sbatch ") + ask + " --wrap=true");
    EXPECT_EQ(r.exit_code, 1) << ask;
    EXPECT_EQ(r.out,
              "sbatch: error: Batch job submission failed: Requested node configuration is not "
              "available\n")
        << ask;
  }
  CommandResult bb = ctld_.Run("sbatch --bb=capacity=1G --wrap=true");
  EXPECT_EQ(bb.exit_code, 1);
  EXPECT_NE(bb.out.find("Burst Buffer request invalid"), std::string::npos) << bb.out;
}

// scontrol show job prints a pending job's GPU requests by job, task and
// node as Slurm does (TresPerJob, TresPerTask, NtasksPerTRES).
TEST_F(JobScriptOptionsTest, ScontrolShowsTheGpuRequestsOfAPendingJob) {
  const std::string by_task = Submit("--hold -n 2 --gpus=a100:2 --gpus-per-task=1 --wrap=true");
  const std::string shown = ctld_.Run("scontrol show job " + by_task).out;
  EXPECT_NE(shown.find("\n   TresPerJob=gres:gpu:a100:2\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\n   TresPerTask=gres:gpu:1\n"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("TresPerNode="), std::string::npos) << shown;
  // Before any allocation, TRES= is what the job asks for, as in Slurm.
  EXPECT_NE(shown.find("\n   TRES=cpu=2,mem=2G,node=1,billing=2,gres/gpu=2\n"), std::string::npos)
      << shown;
  const std::string per_gpu = Submit("--hold --gpus=1 --ntasks-per-gpu=2 --wrap=true");
  const std::string per_gpu_shown = ctld_.Run("scontrol show job " + per_gpu).out;
  EXPECT_NE(per_gpu_shown.find("\n   NtasksPerTRES:2\n"), std::string::npos) << per_gpu_shown;
}

// salloc -I gives up at once when the nodes are taken, and takes its
// request back.
TEST_F(JobScriptOptionsTest, ImmediateGivesUpWhenTheNodesAreBusy) {
  const std::string holder = Submit("-w n1 --exclusive --wrap=true");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, holder, "RUNNING"));
  CommandResult busy = ctld_.Run("salloc -I -w n1 true");
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.out.find("salloc: error: Unable to allocate resources: Requested nodes are busy"),
            std::string::npos)
      << busy.out;
  EXPECT_EQ(ctld_.Run("squeue -h -t PD -o %i").out, "") << "the request was not taken back";
}

}  // namespace
}  // namespace rota
