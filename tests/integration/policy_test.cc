// AccountingStorageEnforce with a real rotadbd and rotactld: the controller
// reads the policy sacctmgr keeps, refuses what it must at submission, holds
// jobs over a limit with Slurm's reason, picks up `sacctmgr modify`, and keeps
// enforcing across a restart while rotadbd is down.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/enforced_accounting_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::kInvalidAccount;

class PolicyTest : public testing::EnforcedAccountingTest {
 protected:
  void ReportExit(uint32_t job_id) { testing::ReportJobExit(ctld_, job_id, 0); }
  // Waits until the controller holds rotadbd's policy: a submission under an
  // account root has no association with is refused.
  bool WaitForPolicy() {
    for (int i = 0; i < 200; ++i) {
      if (ctld_.Run("sbatch --test-only -A chem --wrap=true").out == kInvalidAccount) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(PolicyTest, AssociationsQosAndLimitsFromSacctmgr) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  Sacctmgr("add account physics");
  Sacctmgr("add account chem");
  // root exists (rotadbd creates it with the QoS normal, as Slurm does).
  Sacctmgr("add user root account=physics");
  Sacctmgr("modify user root set DefaultAccount=physics");
  Sacctmgr("add qos small MaxJobsPerUser=1");
  Sacctmgr("add qos strict MaxWall=10 Flags=DenyOnLimit");
  Sacctmgr("modify account physics set QOS+=small,strict");
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  ASSERT_TRUE(WaitForPolicy()) << ctld_.Log();

  // No -A: the user's default account.
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
  EXPECT_EQ(SqueueUntil("1", "%a", "physics"), "physics");
  EXPECT_EQ(ctld_.Run("sbatch -A chem --wrap=true").out, kInvalidAccount);
  EXPECT_EQ(ctld_.Run("sbatch -A nosuch --wrap=true").out, kInvalidAccount);
  EXPECT_EQ(ctld_.Run("sbatch --qos=nosuch --wrap=true").out,
            "sbatch: error: Batch job submission failed: Invalid qos specification\n");
  // DenyOnLimit: over the QoS's MaxWall is refused rather than left pending.
  EXPECT_EQ(ctld_.Run("sbatch --qos=strict -t 20 --wrap=true").out,
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
            "(job submit limit, user's size and/or time limits)\n");

  // MaxJobsPerUser=1: the second waits with Slurm's reason until the first ends.
  ASSERT_EQ(ctld_.Run("sbatch --parsable --qos=small -t 5 --wrap=true").out, "2\n");
  EXPECT_EQ(SqueueUntil("2", "%T", "RUNNING"), "RUNNING") << ctld_.Log();
  ASSERT_EQ(ctld_.Run("sbatch --parsable --qos=small -t 5 --wrap=true").out, "3\n");
  EXPECT_EQ(SqueueUntil("3", "%T/%r", "PENDING/QOSMaxJobsPerUserLimit"),
            "PENDING/QOSMaxJobsPerUserLimit");
  ReportExit(2);
  EXPECT_EQ(SqueueUntil("3", "%T", "RUNNING"), "RUNNING");

  // sacctmgr modify: the controller reads the change at once.
  ASSERT_EQ(ctld_.Run("sbatch --parsable --qos=small -t 5 --wrap=true").out, "4\n");
  EXPECT_EQ(SqueueUntil("4", "%r", "QOSMaxJobsPerUserLimit"), "QOSMaxJobsPerUserLimit");
  CommandResult modify = ctld_.Run("sacctmgr -i modify qos small set MaxJobsPerUser=2");
  EXPECT_EQ(modify.exit_code, 0) << modify.out;
  EXPECT_EQ(modify.out, " Modified qos...\n  small\n");
  EXPECT_EQ(SqueueUntil("4", "%T", "RUNNING"), "RUNNING");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show qos small format=Name,MaxJobsPU").out, "small|2\n");

  // An association limit set with modify on the account.
  Sacctmgr("modify account physics set GrpJobs=2");
  ASSERT_EQ(ctld_.Run("sbatch --parsable -t 5 --wrap=true").out, "5\n");
  EXPECT_EQ(SqueueUntil("5", "%T/%r", "PENDING/AssocGrpJobsLimit"), "PENDING/AssocGrpJobsLimit");
  CommandResult bad = ctld_.Run("sacctmgr -i modify user root set DefaultAccount=nowhere");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("The account nowhere doesn't exist"), std::string::npos) << bad.out;

  // A controller restarted while rotadbd is down still enforces what it knew.
  dbd_.Kill(SIGKILL);
  ctld_.Kill(SIGKILL);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("sbatch -A chem --wrap=true").out, kInvalidAccount);
  EXPECT_EQ(SqueueUntil("5", "%T/%r", "PENDING/AssocGrpJobsLimit"), "PENDING/AssocGrpJobsLimit");
}

}  // namespace
}  // namespace rota
