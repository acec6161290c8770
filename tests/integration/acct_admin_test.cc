// sacctmgr's clusters, the root association rotadbd creates as Slurm does,
// association Priority in sprio, GrpTRESRunMins and Preempt+= with a real
// rotadbd and rotactld.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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

constexpr char kInvalidQos[] =
    "sbatch: error: Batch job submission failed: Invalid qos specification\n";

class AcctAdminTest : public ::testing::Test {
 protected:
  explicit AcctAdminTest(const std::string& extra = "")
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_) + "AccountingStorageEnforce=associations,limits,qos\n" +
              extra),
        dbd_(ctld_, dbd_port_) {}

  void Sacctmgr(const std::string& args) {
    CommandResult r = ctld_.Run("sacctmgr -i " + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.out;
  }
  std::string SqueueUntil(const std::string& job, const std::string& format,
                          const std::string& expected) {
    return testing::SqueueUntil(ctld_, job, format, expected);
  }
  // `command`'s output once it reads `expected` (the controller reads
  // sacctmgr's changes a moment after it is told): 10 s at most.
  std::string RunUntil(const std::string& command, const std::string& expected,
                       bool with_stderr = false) {
    std::string out;
    for (int i = 0; i < 200; ++i) {
      out = ctld_.Run(command, with_stderr).out;
      if (out == expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return out;
  }

  // Waits until the controller holds rotadbd's policy: a submission under an
  // account nobody has is refused.
  bool WaitForPolicy() {
    constexpr char kInvalidAccount[] =
        "sbatch: error: Batch job submission failed: Invalid account or account/partition "
        "combination specified\n";
    // sbatch's refusal goes to stderr.
    return RunUntil("sbatch --test-only -A nosuch --wrap=true", kInvalidAccount, true) ==
           kInvalidAccount;
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
};

TEST_F(AcctAdminTest, ClustersAndTheRootAssociation) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  // ClusterName's cluster exists without being added.
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show cluster format=Cluster,ControlHost,RPC,Share,QOS").out,
            "itest|127.0.0.1|9728|1|normal\n");
  CommandResult r = ctld_.Run("sacctmgr -i add cluster snow");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, " Adding Cluster(s)\n  snow\n");
  r = ctld_.Run("sacctmgr -i add cluster itest");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Cluster itest already exists"), std::string::npos) << r.out;
  EXPECT_EQ(ctld_.Run("sacctmgr -P list clusters format=Cluster,ControlPort").out,
            "Cluster|ControlPort\nitest|" + std::to_string(ctld_.port()) + "\nsnow|0\n");
  // The cluster of slurm.conf holds the association tree: refused, saying why.
  r = ctld_.Run("sacctmgr -i delete cluster itest");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Cluster itest still has associations"), std::string::npos) << r.out;
  r = ctld_.Run("sacctmgr -i delete cluster snow");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show cluster format=Cluster").out, "itest\n");

  // The root association, as Slurm creates it.
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show assoc format=Cluster,Account,User,QOS").out,
            "itest|root||normal\nitest|root|root|normal\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show user root").out, "root|root|Administrator\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show qos format=Name,Priority").out, "normal|0\n");
  r = ctld_.Run("sacctmgr -i delete account root");
  EXPECT_EQ(r.exit_code, 1);

  // Accounts hang under root and inherit its QoS list and limits.
  Sacctmgr("add account physics");
  Sacctmgr("add user root account=physics");
  Sacctmgr("add qos high");
  Sacctmgr("modify account root set GrpJobs=1");
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  ASSERT_TRUE(WaitForPolicy()) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("sbatch -A physics --qos=high --wrap=true").out, kInvalidQos);
  Sacctmgr("modify account root set QOS+=high");
  EXPECT_EQ(RunUntil("sbatch --parsable -A physics --qos=high --wrap=true", "1\n"), "1\n");
  EXPECT_EQ(SqueueUntil("1", "%T", "RUNNING"), "RUNNING") << ctld_.Log();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -A physics --wrap=true").out, "2\n");
  EXPECT_EQ(SqueueUntil("2", "%T/%r", "PENDING/AssocGrpJobsLimit"), "PENDING/AssocGrpJobsLimit");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show assoc format=Account,User,GrpJobs,QOS").out,
            "root||1|high,normal\nroot|root||high,normal\nphysics|||high,normal\n"
            "physics|root||high,normal\n");

  // Preempt+= and Preempt-= edit the list.
  Sacctmgr("modify qos high set Preempt+=normal");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show qos high format=Name,Preempt").out, "high|normal\n");
  Sacctmgr("modify qos high set Preempt-=normal");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show qos high format=Name,Preempt").out, "high|\n");
}

// GrpTRESRunMins=cpu=100 on the QoS normal: a 1-CPU job of 60 minutes runs;
// a second would bring what running jobs have left to about 120 CPU-minutes,
// so it waits with Slurm's reason until the first ends.
TEST_F(AcctAdminTest, GrpTresRunMinsHoldsJobsUntilRunningOnesEnd) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  Sacctmgr("modify qos normal set GrpTRESRunMins=cpu=100");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show qos normal format=Name,GrpTRESRunMins").out,
            "normal|cpu=100\n");
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  ASSERT_TRUE(WaitForPolicy()) << ctld_.Log();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -n 1 -t 60 --wrap=true").out, "1\n");
  EXPECT_EQ(SqueueUntil("1", "%T", "RUNNING"), "RUNNING") << ctld_.Log();
  ASSERT_EQ(ctld_.Run("sbatch --parsable -n 1 -t 60 --wrap=true").out, "2\n");
  EXPECT_EQ(SqueueUntil("2", "%T/%r", "PENDING/QOSGrpCPURunMinutesLimit"),
            "PENDING/QOSGrpCPURunMinutesLimit");
  // A short one fits beside it.
  ASSERT_EQ(ctld_.Run("sbatch --parsable -n 1 -t 30 --wrap=true").out, "3\n");
  EXPECT_EQ(SqueueUntil("3", "%T", "RUNNING"), "RUNNING");
  testing::ReportJobExit(ctld_, 1, 0);
  testing::ReportJobExit(ctld_, 3, 0);
  EXPECT_EQ(SqueueUntil("2", "%T", "RUNNING"), "RUNNING");
}

class AssocPriorityTest : public AcctAdminTest {
 protected:
  AssocPriorityTest()
      : AcctAdminTest("PriorityType=priority/multifactor\nPriorityWeightAssoc=1000\n") {}
};

// Association Priority=, normalised to the highest, weighted by
// PriorityWeightAssoc: sprio's ASSOC column.
TEST_F(AssocPriorityTest, SprioShowsTheAssociationFactor) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  Sacctmgr("add account a Priority=100");
  Sacctmgr("add account b");
  Sacctmgr("add user root account=a,b");
  Sacctmgr("modify user root where account=b set Priority=25");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show assoc format=Account,User,Priority").out,
            "root||\nroot|root|\na||100\na|root|\nb||\nb|root|25\n");
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  ASSERT_TRUE(WaitForPolicy()) << ctld_.Log();
  // No node registers: the jobs stay pending.
  ASSERT_EQ(ctld_.Run("sbatch --parsable -A a --wrap=true").out, "1\n");
  ASSERT_EQ(ctld_.Run("sbatch --parsable -A b --wrap=true").out, "2\n");
  ASSERT_EQ(ctld_.Run("sbatch --parsable -A root --wrap=true").out, "3\n");
  // a inherits 100 (1.0); b's association 25 (0.25); root's none (0).
  EXPECT_EQ(
      RunUntil("sprio -h -o '%i|%B|%b'", "1|1000|1.0000000\n2|250|0.2500000\n3|0|0.0000000\n"),
      "1|1000|1.0000000\n2|250|0.2500000\n3|0|0.0000000\n");
  std::string header = ctld_.Run("sprio", false).out;
  header = header.substr(0, header.find('\n'));
  EXPECT_NE(header.find("ASSOC"), std::string::npos) << header;
}

}  // namespace
}  // namespace rota
