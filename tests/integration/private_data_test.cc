// PrivateData with a real rotactld and rotadbd. jobs,users: an ordinary user
// (made for the test with useradd) sees only their own jobs in squeue,
// scontrol, sprio, rota why and sacct, and only themself in sacctmgr's user list.
// usage,accounts: only their own accounts and associations in sacctmgr, and
// only their own rows in sshare and sreport's usage reports. Root sees
// everyone's; once accounting makes the user an Operator, so do they.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
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

class PrivateDataTest : public ::testing::Test {
 protected:
  explicit PrivateDataTest(const std::string& private_data = "jobs,users")
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_) + "PrivateData=" + private_data +
              "\nPriorityType=priority/multifactor\n"),
        dbd_(ctld_, dbd_port_),
        user_("rotapd" + std::to_string(getpid())) {}

  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "this test makes a user and runs commands as them";
    ASSERT_EQ(std::system(("useradd -M -N -s /bin/sh " + user_ + " 2>/dev/null").c_str()), 0);
    made_user_ = true;
    passwd* pw = getpwnam(user_.c_str());
    ASSERT_NE(pw, nullptr);
    // The user's commands read slurm.conf in the test's directory.
    ASSERT_EQ(chmod(ctld_.dir().path().c_str(), 0755), 0);
    // auth/slurm: the user signs with the shared key, so it must be theirs to
    // read (mode 0600); the daemons, as root, still read it.
    ASSERT_EQ(chown((ctld_.dir().path() / "slurm.key").c_str(), pw->pw_uid, 0), 0);
    ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
    ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotactld:\n" << ctld_.Log() << "rotadbd:\n" << dbd_.Log();
    ctld_.Kill(SIGTERM);
    dbd_.Kill(SIGTERM);
    if (made_user_) std::system(("userdel " + user_ + " 2>/dev/null").c_str());
  }

  // Runs a built command as the test user.
  CommandResult AsUser(const std::string& command_line) const {
    return ctld_.Run("su -s /bin/sh " + user_ + " -c \"SLURM_CONF=" + ctld_.conf() + " " +
                     testing::BinDir() + "/" + command_line + "\"");
  }
  // Runs `run` until it prints `expected`, for up to 10 s; the last output.
  template <typename F>
  static std::string Until(F run, const std::string& expected) {
    std::string out;
    for (int i = 0; i < 200; ++i) {
      out = run().out;
      if (out == expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return out;
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
  std::string user_;
  bool made_user_ = false;
};

TEST_F(PrivateDataTest, OrdinaryUsersSeeOnlyTheirOwn) {
  ASSERT_EQ(ctld_.Run("sacctmgr -i add user " + user_ + " DefaultAccount=root").exit_code, 0);
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -J roots --wrap=true").out, "1\n");
  CommandResult mine = AsUser("sbatch --parsable --hold -J mine --wrap=true");
  ASSERT_EQ(mine.out, "2\n") << mine.out;

  // The controller: squeue and scontrol.
  EXPECT_EQ(ctld_.Run("squeue -h -o %i").out, "1\n2\n");
  EXPECT_EQ(AsUser("squeue -h -o %i").out, "2\n");
  EXPECT_EQ(AsUser("squeue -h -o %i -j 1").out.find('1'), std::string::npos);
  EXPECT_EQ(AsUser("scontrol show job 1").out.find("JobId=1 "), std::string::npos);
  EXPECT_NE(AsUser("scontrol show job 2").out.find("JobId=2 "), std::string::npos);
  EXPECT_NE(ctld_.Run("scontrol show job 2").out.find("JobId=2 "), std::string::npos);

  // sprio (pending jobs, held or not: no node is up to run them).
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J rootpend --wrap=true").out, "3\n");
  ASSERT_EQ(AsUser("sbatch --parsable -J minepend --wrap=true").out, "4\n");
  EXPECT_EQ(ctld_.Run("sprio -h -o %i").out, "1\n2\n3\n4\n");
  EXPECT_EQ(AsUser("sprio -h -o %i").out, "2\n4\n");
  // rota why: not another's job; their own, with the owners of the jobs
  // ahead left out (root's job 3 is ahead of job 4).
  CommandResult why = AsUser("rota why 3");
  EXPECT_EQ(why.exit_code, 1);
  EXPECT_NE(why.out.find("Invalid job id specified"), std::string::npos) << why.out;
  why = AsUser("rota why --json 4");
  EXPECT_EQ(why.exit_code, 0) << why.out;
  EXPECT_NE(why.out.find("\"job_id\": 3,\n      \"user\": \"\""), std::string::npos) << why.out;
  why = ctld_.Run("rota why --json 4");
  EXPECT_NE(why.out.find("\"job_id\": 3,\n      \"user\": \"root\""), std::string::npos) << why.out;

  // rotadbd: sacct -a (all users) and sacctmgr's list of users. Jobs reach
  // rotadbd when they end.
  ASSERT_EQ(ctld_.Run("scancel 1 2 3 4").exit_code, 0);
  const std::string all = "1|roots\n2|mine\n3|rootpend\n4|minepend\n";
  EXPECT_EQ(testing::SacctUntil(ctld_, "-a -n -P -X -o JobID,JobName", all), all);
  EXPECT_EQ(AsUser("sacct -a -n -P -X -o JobID,JobName").out, "2|mine\n4|minepend\n");
  EXPECT_EQ(AsUser("sacctmgr -n -P show user format=User").out, user_ + "\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show user format=User").out, "root\n" + user_ + "\n");

  // An Operator sees everyone's, in both daemons.
  ASSERT_EQ(ctld_.Run("sacctmgr -i modify user " + user_ + " set AdminLevel=Operator").exit_code,
            0);
  EXPECT_EQ(AsUser("sacct -a -n -P -X -o JobID").out, "1\n2\n3\n4\n");
  EXPECT_EQ(Until([&] { return AsUser("squeue -h -t all -o %i | sort"); }, "1\n2\n3\n4\n"),
            "1\n2\n3\n4\n");
}

// usage and accounts without jobs: sacct still shows everyone's jobs, as in
// Slurm, while sreport's usage reports and sshare do not.
class PrivateUsageTest : public PrivateDataTest {
 protected:
  PrivateUsageTest() : PrivateDataTest("usage,accounts") {}
};

TEST_F(PrivateUsageTest, AccountsAndUsageOfOthersAreHidden) {
  ASSERT_EQ(ctld_.Run("sacctmgr -i add account physics").exit_code, 0);
  ASSERT_EQ(ctld_.Run("sacctmgr -i add account chem").exit_code, 0);
  ASSERT_EQ(ctld_.Run("sacctmgr -i add user " + user_ + " DefaultAccount=physics").exit_code, 0);
  ASSERT_EQ(ctld_.Run("sacctmgr -i add user root account=chem").exit_code, 0);

  // rotadbd: accounts and associations.
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P show account format=Account").out, "chem\nphysics\nroot\n");
  EXPECT_EQ(AsUser("sacctmgr -n -P show account format=Account").out, "physics\n");
  const std::string assocs = ctld_.Run("sacctmgr -n -P show assoc format=Account,User").out;
  EXPECT_NE(assocs.find("chem|root\n"), std::string::npos) << assocs;
  EXPECT_NE(assocs.find("root|root\n"), std::string::npos) << assocs;
  const std::string mine = AsUser("sacctmgr -n -P show assoc format=Account,User").out;
  EXPECT_NE(mine.find("physics|" + user_ + "\n"), std::string::npos) << mine;
  // (sacctmgr draws the tree from root down, so an empty root row stays.)
  EXPECT_EQ(mine.find("chem"), std::string::npos) << mine;
  EXPECT_EQ(mine.find("root|root"), std::string::npos) << mine;

  // rotactld: sshare, even when the user asks for everyone or for root.
  // (sshare indents the Account column by depth.)
  const std::string own = "  physics|" + user_ + "\n";
  EXPECT_EQ(Until([&] { return AsUser("sshare -a -n -P -o Account,User"); }, own), own);
  EXPECT_EQ(AsUser("sshare -n -P -o Account,User -u root").out, "");
  EXPECT_EQ(AsUser("sshare -n -P -o Account,User -A chem -a").out, "");
  const std::string tree = ctld_.Run("sshare -a -n -P -o Account,User").out;
  EXPECT_NE(tree.find("chem|root\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find(own), std::string::npos) << tree;

  // rotadbd: sreport's usage reports. One job each, run on a node the test
  // registers, for over a second so that each user has usage.
  testing::RegisterFakeNodes(ctld_, {"n1"});
  ASSERT_EQ(ctld_.Run("sbatch --parsable -J roots --wrap=true").out, "1\n");
  ASSERT_EQ(AsUser("sbatch --parsable -J mine --wrap=true").out, "2\n");
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "1", "RUNNING"));
  ASSERT_TRUE(testing::WaitForJobState(ctld_, "2", "RUNNING"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  testing::ReportJobExit(ctld_, 1, 0);
  testing::ReportJobExit(ctld_, 2, 0);
  const std::string ended = "1|COMPLETED\n2|COMPLETED\n";
  ASSERT_EQ(testing::SacctUntil(ctld_, "-a -n -P -X -o JobID,State", ended), ended);
  EXPECT_EQ(AsUser("sacct -a -n -P -X -o JobID,State").out, ended);
  const std::string top = "sreport -n -P -t seconds user topusage start=now-1hour";
  const std::string everyone = ctld_.Run(top).out;
  EXPECT_NE(everyone.find("|root|"), std::string::npos) << everyone;
  EXPECT_NE(everyone.find("|" + user_ + "|"), std::string::npos) << everyone;
  const std::string own_usage = AsUser(top).out;
  EXPECT_NE(own_usage.find("|" + user_ + "|"), std::string::npos) << own_usage;
  EXPECT_EQ(own_usage.find("root"), std::string::npos) << own_usage;
  const std::string by_account =
      AsUser("sreport -n -P -t seconds cluster UserUtilizationByAccount start=now-1hour").out;
  EXPECT_NE(by_account.find("|" + user_ + "|"), std::string::npos) << by_account;
  EXPECT_EQ(by_account.find("root"), std::string::npos) << by_account;

  // An Operator sees every account and the whole tree.
  ASSERT_EQ(ctld_.Run("sacctmgr -i modify user " + user_ + " set AdminLevel=Operator").exit_code,
            0);
  EXPECT_EQ(AsUser("sacctmgr -n -P show account format=Account").out, "chem\nphysics\nroot\n");
  EXPECT_EQ(AsUser(top).out, everyone);
  EXPECT_EQ(Until([&] { return AsUser("sshare -a -n -P -o Account,User"); }, tree), tree);
}

}  // namespace
}  // namespace rota
