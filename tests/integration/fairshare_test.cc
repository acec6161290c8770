// Fair-share with a real rotactld: two users run jobs, the heavier user's
// pending job gets the lower fair-share factor in sprio, sshare shows the
// usage, and the usage survives a controller restart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

// No decay (exact usage), recomputed every second; a GPU partition billing
// 10 a GPU.
constexpr char kFairshare[] =
    "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n"
    "PriorityCalcPeriod=0:01\nPriorityDecayHalfLife=0\n"
    "PartitionName=gpu Nodes=ALL MaxTime=1-00:00:00 TRESBillingWeights=CPU=1,GRES/gpu=10\n";

class FairshareTest : public ::testing::Test {
 protected:
  FairshareTest() : ctld_(kFairshare) {}

  void RegisterNodes() {
    auto client = cli::ControllerClient::Create(ctld_.conf());
    ASSERT_TRUE(client.ok()) << client.status().message();
    for (const char* node : {"n1", "n2", "n3", "n4"}) {
      wire::NodeRegisterRequest req;
      req.set_node(node);
      req.set_boot_time(1);
      wire::Empty resp;
      ASSERT_TRUE((*client)->Call(api::kNodeRegister, req, &resp).ok());
    }
  }
  std::string Squeue(const std::string& job, const std::string& format) {
    return std::string(Trim(ctld_.Run("squeue -h -t all -o " + format + " -j " + job, false).out));
  }
  bool WaitFor(const std::function<bool()>& condition) {
    for (int i = 0; i < 200; ++i) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // sshare -a's RawUsage of `user`; -1 when not listed.
  long long RawUsage(const std::string& user) {
    std::string out = ctld_.Run("sshare -a -n -P -o User,RawUsage", false).out;
    for (std::string_view line : Split(out, '\n')) {
      std::vector<std::string_view> cells = Split(line, '|');
      if (cells.size() == 2 && cells[0] == user) {
        std::optional<uint64_t> n = ParseUint(cells[1]);
        return n ? static_cast<long long>(*n) : -1;
      }
    }
    return -1;
  }

  ControllerProcess ctld_;
};

TEST_F(FairshareTest, HeavierUserRanksLowerAndUsageSurvivesARestart) {
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  RegisterNodes();
  // The second user is nobody, with this test cluster's key (as sdiag's test).
  chmod(ctld_.dir().path().c_str(), 0755);
  ASSERT_EQ(chown((ctld_.dir().path() / "slurm.key").c_str(), 65534, 65534), 0);
  chmod(ctld_.conf().c_str(), 0644);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";

  // root: 1 CPU and 2 GPUs (21 a second); nobody: 1 CPU (1 a second).
  ASSERT_EQ(ctld_.Run("sbatch --parsable -p gpu --gres=gpu:2 --wrap=true", false).out, "1\n");
  ASSERT_EQ(ctld_.Run(as_nobody + "sbatch --parsable -p gpu --wrap=true", false).out, "2\n");
  ASSERT_TRUE(WaitFor([&] { return Squeue("1,2", "%T") == "RUNNING\nRUNNING"; })) << ctld_.Log();
  // Whole-cluster jobs wait while those run.
  ASSERT_EQ(ctld_.Run("sbatch --parsable -N4 -n32 --wrap=true", false).out, "3\n");
  ASSERT_EQ(ctld_.Run(as_nobody + "sbatch --parsable -N4 -n32 --wrap=true", false).out, "4\n");
  ASSERT_TRUE(WaitFor([&] { return RawUsage("nobody") > 0 && RawUsage("root") > 20; }))
      << ctld_.Run("sshare -a -l", false).out;

  // Fair Tree: nobody (less usage for the same share) ranks 2 of 2, root 1 of 2.
  ASSERT_TRUE(WaitFor([&] {
    return ctld_.Run("sprio -h -o %i/%u/%F", false).out == "3/root/5000\n4/nobody/10000\n";
  })) << ctld_.Run("sprio -l", false).out;
  CommandResult r = ctld_.Run("sprio -h -o %i/%Y", false);
  std::vector<std::string_view> rows = Split(Trim(r.out), '\n');
  ASSERT_EQ(rows.size(), 2u) << r.out;
  uint64_t p3 = ParseUint(Split(rows[0], '/')[1]).value_or(0);
  uint64_t p4 = ParseUint(Split(rows[1], '/')[1]).value_or(0);
  EXPECT_LT(p3, p4) << r.out;

  r = ctld_.Run("sshare -a", false);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.substr(0, 87),
            "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  "
            "FairS")
      << r.out;
  EXPECT_NE(r.out.find("  0.500000 \n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  1.000000 \n"), std::string::npos) << r.out;
  r = ctld_.Run("sshare -a -P -o Account,User,RawShares,FairShare", false);
  EXPECT_NE(r.out.find(" root|root|1|0.500000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" root|nobody|1|1.000000\n"), std::string::npos) << r.out;
  // Without -a only the caller's own association; -U without the accounts' rows.
  r = ctld_.Run(as_nobody + "sshare -n -P -o User", false);
  EXPECT_EQ(r.out, "\nnobody\n") << r.out;
  r = ctld_.Run(as_nobody + "sshare -U -n -P -o User,Cluster", false);
  EXPECT_EQ(r.out, "nobody|itest\n") << r.out;

  // A restart keeps the usage (the jobs still run there: it only grows).
  ASSERT_TRUE(WaitFor([&] { return RawUsage("root") > 40; }));
  long long before = RawUsage("root");
  ctld_.Kill(SIGTERM);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  long long after = RawUsage("root");
  EXPECT_GE(after, before) << ctld_.Log();
  EXPECT_GT(after, 40);
}

// Shares from sacctmgr: rotadbd checks and keeps Fairshare=N|parent, the
// controller reads them with the rest of the policy and sshare shows them.
TEST(FairshareDbdTest, SacctmgrSharesReachSshare) {
  uint16_t dbd_port = testing::FreeLoopbackPort();
  ControllerProcess ctld(testing::AccountingConf(dbd_port) +
                         "AccountingStorageEnforce=associations\n" + kFairshare);
  testing::DbdProcess dbd(ctld, dbd_port);
  ASSERT_TRUE(dbd.Start()) << dbd.Log();
  for (const char* args :
       {"add account physics Fairshare=3", "add account chem", "add user root account=physics",
        "modify user root set DefaultAccount=physics",
        "add user nobody DefaultAccount=chem Fairshare=parent"}) {
    CommandResult r = ctld.Run(std::string("sacctmgr -i ") + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.out;
  }
  CommandResult bad = ctld.Run("sacctmgr -i modify account chem set Fairshare=lots");
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  ASSERT_EQ(ctld.Run("sacctmgr -i modify account chem set Fairshare=2").exit_code, 0);
  EXPECT_EQ(ctld.Run("sacctmgr -n -P show account format=Account,Fairshare", false).out,
            "chem|2\nphysics|3\nroot|\n");
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out = ctld.Run("sshare -a -n -P -o Account,User,RawShares,NormShares", false).out;
    if (out.find("physics") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(out,
            "root|||1.000000\n"
            " root|root|1|0.166667\n"  // rotadbd's root association, one share
            " chem||2|0.333333\n"
            "  chem|nobody|parent|0.333333\n"
            " physics||3|0.500000\n"
            "  physics|root|1|0.500000\n")
      << ctld.Log();
}

}  // namespace
}  // namespace rota
