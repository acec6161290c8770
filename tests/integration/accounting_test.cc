// rotactld and rotadbd started for real: jobs go through the controller's
// outbox into rotadbd's SQLite store and come back out through sacct.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota {
namespace {

using testing::AccountingConf;
using testing::CommandResult;
using testing::ControllerProcess;
using testing::DbdProcess;

class AccountingTest : public ::testing::Test {
 protected:
  AccountingTest()
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_)),
        dbd_(ctld_, dbd_port_) {}

  void RegisterNodes() { testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"}); }
  void ReportExit(uint32_t job_id, uint32_t wait_status) {
    testing::ReportJobExit(ctld_, job_id, wait_status);
  }
  bool WaitForState(const std::string& job, const std::string& state) {
    return testing::WaitForJobState(ctld_, job, state);
  }
  std::string SacctUntil(const std::string& sacct_args, const std::string& expected) {
    return testing::SacctUntil(ctld_, sacct_args, expected);
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
};

TEST_F(AccountingTest, FinishedAndRunningJobsShowInSacct) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J gpujob --gres=gpu:2 -t 10 --wrap=true").out, "1\n");
  ASSERT_TRUE(WaitForState("1", "RUNNING"));
  EXPECT_EQ(SacctUntil("-P -X -o JobID,JobName,Partition,State,End,AllocTRES",
                       "JobID|JobName|Partition|State|End|AllocTRES\n"
                       "1|gpujob|batch|RUNNING|Unknown|billing=1,cpu=1,gres/gpu=2,mem=1G,node=1\n"),
            "JobID|JobName|Partition|State|End|AllocTRES\n"
            "1|gpujob|batch|RUNNING|Unknown|billing=1,cpu=1,gres/gpu=2,mem=1G,node=1\n")
      << ctld_.Log() << dbd_.Log();

  ReportExit(1, 0);
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -J held -n 2 --wrap=true").out, "2\n");
  EXPECT_EQ(ctld_.Run("scancel 2").exit_code, 0);
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J fails --wrap=true").out, "3\n");
  ASSERT_TRUE(WaitForState("3", "RUNNING"));
  ReportExit(3, 2 << 8);
  const std::string expected =
      "1|gpujob|batch|root|1|COMPLETED|0:0|billing=1,cpu=1,gres/gpu=2,mem=1G,node=1|n1\n"
      "1.batch|batch|||1|COMPLETED|0:0|cpu=1,gres/gpu=2,mem=1G,node=1|n1\n"
      "2|held|batch|root|2|CANCELLED by 0|0:0||None assigned\n"
      "3|fails|batch|root|1|FAILED|2:0|billing=1,cpu=1,mem=1G,node=1|n1\n"
      "3.batch|batch|||1|FAILED|2:0|cpu=1,mem=1G,node=1|n1\n";
  EXPECT_EQ(SacctUntil("-a -n -P -o JobID,JobName,Partition,User,AllocCPUS,State,ExitCode,"
                       "AllocTRES,NodeList",
                       expected),
            expected)
      << ctld_.Log() << dbd_.Log();

  // Filters: by job (whatever its age), by state, by user; the aligned layout.
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID,State -s F").out, "3|FAILED\n3.batch|FAILED\n");
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID -j 2,3 -S now+1days").out, "2\n3\n3.batch\n");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -j 2,3").out, "2\n3\n");
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID,State -j 3.batch").out, "3.batch|FAILED\n");
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID -u nobody").out, "");
  // --name, -q, -g, -b (JobID,State,ExitCode) and --delimiter.
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID --name=held,fails").out, "2\n3\n");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -q nosuchqos").out, "");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -g 0 -j 1").out, "1\n");
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -N n[1-3]").out, "1\n3\n");  // 2 ran nowhere
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID -N n2").out, "");
  EXPECT_EQ(ctld_.Run("sacct -X -n -b -p --delimiter=, -j 3").out, "3,FAILED,2:0,\n");
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID,ReqTRES -j 2").out,
            "2|billing=2,cpu=2,mem=2G,node=1\n");
  EXPECT_EQ(ctld_.Run("sacct -j 1").out,
            "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
            "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
            "1                gpujob      batch                     1  COMPLETED      0:0 \n"
            "1.batch           batch                                1  COMPLETED      0:0 \n");
  CommandResult bad = ctld_.Run("sacct -o JobID,Nonsense");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("Invalid field requested"), std::string::npos) << bad.out;

  // sreport over the last hour, in seconds: 4 nodes of 8 CPUs and 4 GPUs
  // reported for 3600 s, split between what the jobs held and idle time.
  CommandResult report =
      ctld_.Run("sreport -n -P -t seconds -T cpu,gres/gpu cluster utilization start=now-1hour");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  std::vector<std::string_view> lines = Split(Trim(report.out), '\n');
  ASSERT_EQ(lines.size(), 2u) << report.out;
  for (size_t i = 0; i < 2; ++i) {
    std::vector<std::string_view> f = Split(lines[i], '|');
    ASSERT_EQ(f.size(), 8u) << lines[i];
    EXPECT_EQ(f[0], "itest");
    EXPECT_EQ(f[1], i == 0 ? "cpu" : "gres/gpu");
    const uint64_t reported = i == 0 ? 32 * 3600 : 16 * 3600;
    EXPECT_EQ(f[7], std::to_string(reported));
    EXPECT_EQ(*ParseUint(f[2]) + *ParseUint(f[5]), reported) << lines[i];
  }
  // format= chooses, orders and sizes the columns (key and names in any
  // case), in -P and aligned; an unknown name is refused by name.
  report = ctld_.Run(
      "sreport -n -P -t hours cluster utilization FORMAT=reported,Cluster "
      "start=now-1hour");
  EXPECT_EQ(report.exit_code, 0) << report.out;
  EXPECT_EQ(report.out, "32|itest\n");
  report = ctld_.Run(
      "sreport -n -t hours -T gres/gpu cluster utilization "
      "format=TresName%9,Reported%4,cluster%3 start=now-1hour");
  EXPECT_EQ(report.out, " gres/gpu   16 it+ \n");
  // As Slurm's: the unknown field is named and left out, the rest is shown,
  // and the exit status says something was wrong.
  report = ctld_.Run("sreport -n -P cluster utilization format=Cluster,Bogus start=now-1hour");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(report.out, " Unknown field 'Bogus'\nitest\n");
  report = ctld_.Run("sreport cluster utilization format=Bogus start=now-1hour");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(report.out, " Unknown field 'Bogus'\n");
  CommandResult unknown = ctld_.Run("sreport job sizesbywckey");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.out.find("sreport: error: Not valid report job sizesbywckey"),
            std::string::npos)
      << unknown.out;
}

// sacct -j ARRAY lists every task of the array; -j ARRAY_TASK one.
TEST_F(AccountingTest, AnArraysIdListsEveryTaskAndATaskIdOne) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  const std::string array =
      std::string(Trim(ctld_.Run("sbatch --parsable -a 1-3 --wrap=true").out));
  ASSERT_FALSE(array.empty());
  std::vector<std::string> ids;
  for (int tries = 0; tries < 100 && ids.size() != 3; ++tries) {
    if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string out = ctld_.Run("squeue -h -t R -o %A").out;
    ids.clear();
    for (std::string_view id : Split(Trim(out), '\n')) {
      if (!id.empty()) ids.emplace_back(id);
    }
  }
  ASSERT_EQ(ids.size(), 3u) << ctld_.Run("squeue -r").out;
  for (const std::string& id : ids) ReportExit(static_cast<uint32_t>(*ParseUint(id)), 0);
  // By job id, as rotadbd keeps them: the array's own id went to its last
  // task, which comes first (as the record Slurm's database made first).
  const std::string all =
      array + "_3|COMPLETED\n" + array + "_1|COMPLETED\n" + array + "_2|COMPLETED\n";
  EXPECT_EQ(SacctUntil("-X -n -P -o JobID,State -j " + array, all), all)
      << ctld_.Log() << dbd_.Log();
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID,State -j " + array + "_2").out,
            array + "_2|COMPLETED\n");
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID -j " + array + "_3.batch").out, array + "_3.batch\n");
  CommandResult bad = ctld_.Run("sacct -j " + array + "_x");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "sacct: fatal: Bad job/step specified: " + array + "_x\n");
}

TEST_F(AccountingTest, RecordsWaitWhileRotadbdIsDownAndArriveOnceLater) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J before --wrap=true").out, "1\n");
  ASSERT_TRUE(WaitForState("1", "RUNNING"));
  ReportExit(1, 0);
  ASSERT_TRUE(WaitForState("1", "COMPLETED"));
  EXPECT_EQ(SacctUntil("-X -n -P -o JobID,State", "1|COMPLETED\n"), "1|COMPLETED\n");

  dbd_.Kill(SIGKILL);  // rotadbd goes away.
  for (int i = 2; i <= 4; ++i) {
    ASSERT_EQ(ctld_.Run("sbatch --parsable -J during --wrap=true").out, std::to_string(i) + "\n");
  }
  for (int i = 2; i <= 4; ++i) ASSERT_TRUE(WaitForState(std::to_string(i), "RUNNING"));
  ReportExit(2, 0);
  ReportExit(3, 1 << 8);
  EXPECT_EQ(ctld_.Run("scancel 4").exit_code, 0);
  ReportExit(4, 15);  // Its node reports the script gone (SIGTERM).
  ASSERT_TRUE(WaitForState("3", "FAILED"));
  ASSERT_TRUE(WaitForState("4", "CANCELLED"));
  EXPECT_EQ(ctld_.Run("sacct -n -P -o JobID").exit_code, 1);  // Nobody to ask.

  // The controller restarts too while records wait: they are on disk.
  ctld_.Kill(SIGKILL);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  const std::string expected =
      "1|before|COMPLETED|0:0\n"
      "1.batch|batch|COMPLETED|0:0\n"
      "2|during|COMPLETED|0:0\n"
      "2.batch|batch|COMPLETED|0:0\n"
      "3|during|FAILED|1:0\n"
      "3.batch|batch|FAILED|1:0\n"
      "4|during|CANCELLED by 0|0:0\n"
      "4.batch|batch|CANCELLED|0:15\n";  // As Slurm: the script died of SIGTERM
  EXPECT_EQ(SacctUntil("-n -P -D -o JobID,JobName,State,ExitCode", expected), expected)
      << ctld_.Log() << dbd_.Log();
  // Nothing was stored twice: one record per attempt, even with -D.
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -D -o JobID -S now-1days").out, "1\n2\n3\n4\n");
}

TEST_F(AccountingTest, EachRequeuedAttemptIsARecordOfItsOwn) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  ASSERT_EQ(ctld_.Run("sbatch --parsable --requeue -J again --wrap=true").out, "1\n");
  ASSERT_TRUE(WaitForState("1", "RUNNING"));
  ASSERT_EQ(ctld_.Run("scontrol requeue 1").exit_code, 0);
  // The old run is COMPLETING until its node reports it gone.
  ASSERT_TRUE(WaitForState("1", "COMPLETING"));
  ReportExit(1, SIGTERM);
  bool running_again = false;
  for (int i = 0; i < 300 && !running_again; ++i) {
    running_again =
        ctld_.Run("squeue -h -o %T,%r -j 1", false).out.rfind("RUNNING", 0) == 0 &&
        ctld_.Run("scontrol show job 1", false).out.find("Restarts=1") != std::string::npos;
    if (!running_again) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running_again) << ctld_.Run("scontrol show job 1").out;
  ReportExit(1, 0);
  const std::string all = "1|REQUEUED|0\n1|COMPLETED|1\n";
  EXPECT_EQ(SacctUntil("-X -n -P -D -o JobID,State,Restarts", all), all) << dbd_.Log();
  EXPECT_EQ(ctld_.Run("sacct -X -n -P -o JobID,State,Restarts").out, "1|COMPLETED|1\n");
}

TEST_F(AccountingTest, SacctmgrAccountsUsersAndQos) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  CommandResult r = ctld_.Run("sacctmgr -i add account physics Description=Physics");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, " Adding Account(s)\n  physics\n Settings\n  Description     = Physics\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -i add account theory Parent=physics").exit_code, 0);
  r = ctld_.Run("sacctmgr -i add account lost Parent=nowhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Parent account nowhere doesn't exist"), std::string::npos) << r.out;
  EXPECT_EQ(ctld_.Run("sacctmgr -P -n show account").out,
            "physics|Physics|physics\nroot|default root account|root\ntheory|theory|physics\n");

  EXPECT_EQ(
      ctld_.Run("sacctmgr -i add user alice DefaultAccount=theory AdminLevel=operator").exit_code,
      0);
  r = ctld_.Run("sacctmgr -i add user bob");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Need a default account"), std::string::npos) << r.out;
  EXPECT_EQ(ctld_.Run("sacctmgr show user").out,
            "      User   Def Acct     Admin \n"
            "---------- ---------- --------- \n"
            "     alice     theory  Operator \n"
            "      root       root Administ+ \n");  // rotadbd's root, as Slurm's

  EXPECT_EQ(ctld_
                .Run("sacctmgr -i add qos gpu MaxWall=1-00:00:00 MaxJobsPerUser=4 "
                     "MaxTRESPerUser=gres/gpu=8")
                .exit_code,
            0);
  EXPECT_EQ(ctld_.Run("sacctmgr -P show qos format=Name,MaxWall,MaxJobsPU,MaxTRESPU").out,
            "Name|MaxWall|MaxJobsPU|MaxTRESPU\ngpu|1-00:00:00|4|gres/gpu=8\n"
            "normal|||\n");  // rotadbd's, as Slurm's
  r = ctld_.Run("sacctmgr -i add qos bad MaxJobsPerUser=lots");
  EXPECT_EQ(r.exit_code, 1);

  // An account still in use cannot go; once its user is gone, it can.
  r = ctld_.Run("sacctmgr -i delete account theory");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("still the default account of user alice"), std::string::npos) << r.out;
  EXPECT_EQ(ctld_.Run("sacctmgr -i delete user where name=alice").out,
            " Deleting user(s)...\n  alice\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -i delete account theory").exit_code, 0);
  EXPECT_EQ(ctld_.Run("sacctmgr -i delete account theory").out, " Nothing deleted\n");
  // Without -i nothing is changed unless the answer is y.
  EXPECT_EQ(ctld_.Run("sh -c 'echo n | sacctmgr add account chem'").out,
            " Adding Account(s)\n  chem\nWould you like to commit changes? (You have 30 seconds "
            "to decide)\n(N/y):  Changes Discarded\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show account chem").out, "");
  // The store survives a restart of rotadbd.
  dbd_.Kill(SIGTERM);
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show account").out,
            "physics|Physics|physics\nroot|default root account|root\n");
}

}  // namespace
}  // namespace rota
