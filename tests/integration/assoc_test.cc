// A user in several accounts through sacctmgr and sbatch with a real rotadbd
// and rotactld: the default account, -A naming one of the user's
// associations, associations added, made default and deleted, QoS lists per
// association, and a job held by GrpTRESMins.
#include <gtest/gtest.h>

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
constexpr char kInvalidQos[] =
    "sbatch: error: Batch job submission failed: Invalid qos specification\n";

class AssocTest : public testing::EnforcedAccountingTest {
 protected:
  // sbatch's answer once it reads `expected`: 10 s at most.
  std::string SbatchUntil(const std::string& args, const std::string& expected) {
    std::string out;
    for (int i = 0; i < 200; ++i) {
      out = ctld_.Run("sbatch " + args).out;
      if (out == expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return out;
  }
};

TEST_F(AssocTest, AUserInSeveralAccountsWithQosListsAndMinutes) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  Sacctmgr("add account a");
  Sacctmgr("add account b");
  Sacctmgr("add account c");
  Sacctmgr("add qos high");  // rotadbd has "normal", as Slurm
  // root exists (with its association with root): it gains two more.
  Sacctmgr("add user root account=a,b");
  Sacctmgr("modify user root set DefaultAccount=a");
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  ASSERT_EQ(SbatchUntil("--test-only -A c --wrap=true", kInvalidAccount), kInvalidAccount)
      << ctld_.Log();

  // The default account; -A takes any of the user's.
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
  EXPECT_EQ(SqueueUntil("1", "%a", "a"), "a");
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -A b --wrap=true").out, "2\n");
  EXPECT_EQ(SqueueUntil("2", "%a", "b"), "b");

  // Another association, then a new default, then one removed.
  Sacctmgr("add user root account=c");
  EXPECT_EQ(SbatchUntil("--parsable --hold -A c --wrap=true", "3\n"), "3\n");
  Sacctmgr("modify user root set DefaultAccount=b");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show user root").out, "root|b|Administrator\n");
  CommandResult refused = ctld_.Run("sacctmgr -i delete user root where account=b");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("default account of user root"), std::string::npos) << refused.out;
  CommandResult deleted = ctld_.Run("sacctmgr -i delete user root where account=c");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.out;
  EXPECT_EQ(deleted.out, " Deleting user associations...\n  A = c          U = root\n");
  EXPECT_EQ(SbatchUntil("-A c --wrap=true", kInvalidAccount), kInvalidAccount);
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "4\n");
  EXPECT_EQ(SqueueUntil("4", "%a", "b"), "b");

  // QoS lists: on the account a, inherited by root's association with it.
  Sacctmgr("modify account a set QOS=normal");
  EXPECT_EQ(SbatchUntil("-A a --qos=high --wrap=true", kInvalidQos), kInvalidQos);
  Sacctmgr("modify user root where account=a set QOS+=high DefaultQOS=high");
  EXPECT_EQ(SbatchUntil("--parsable --hold -A a --wrap=true", "5\n"), "5\n");
  EXPECT_EQ(SqueueUntil("5", "%q", "high"), "high");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show assoc format=Account,User,QOS,DefQOS").out,
            "root||normal|\n"  // The root association, as Slurm creates it
            "root|root|normal|\n"
            "a||normal|\n"
            "a|root|high,normal|high\n"
            "b||normal|\n"  // Inherited from root
            "b|root|normal|\n"
            "c||normal|\n");
  EXPECT_EQ(
      ctld_.Run("sacctmgr -n -P show user withassoc format=User,DefaultAccount,Account,QOS").out,
      "root|b|root|normal\nroot|b|a|high,normal\nroot|b|b|normal\n");
  // -s is withassoc, as Slurm's sacctmgr takes it.
  EXPECT_EQ(ctld_.Run("sacctmgr -s -n -P list user format=User,DefaultAccount,Account,QOS").out,
            "root|b|root|normal\nroot|b|a|high,normal\nroot|b|b|normal\n");

  // GrpTRESMins=cpu=0 on root's association with b: its jobs wait.
  Sacctmgr("modify user root where account=b set GrpTRESMins=cpu=0");
  // The controller reads the change a moment after sacctmgr tells it: a job
  // submitted before may still start, so try again.
  std::string held;
  for (int i = 0; i < 10 && held.empty(); ++i) {
    held = std::string(Trim(ctld_.Run("sbatch --parsable -A b --wrap=true").out));
    if (SqueueUntil(held, "%r", "AssocGrpCPUMinutesLimit") != "AssocGrpCPUMinutesLimit") {
      held.clear();
    }
  }
  EXPECT_FALSE(held.empty()) << ctld_.Log();
  EXPECT_EQ(SqueueUntil(held, "%T/%r", "PENDING/AssocGrpCPUMinutesLimit"),
            "PENDING/AssocGrpCPUMinutesLimit");
  // Its association with a is not limited.
  std::string other(Trim(ctld_.Run("sbatch --parsable -A a --wrap=true").out));
  EXPECT_EQ(SqueueUntil(other, "%T", "RUNNING"), "RUNNING");
}

}  // namespace
}  // namespace rota
