// Advance reservations against a real rotactld, driven by the built
// commands: scontrol create/show/update/delete reservation, sbatch
// --reservation, sinfo's maint state, and a restart that keeps them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

class ReservationIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ctld_.Start()) << ctld_.Log(); }

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
  // Polls squeue until `job` shows `field` (an -o format) equal to `want`.
  bool WaitFor(const std::string& job, const std::string& field, const std::string& want) {
    for (int i = 0; i < 250; ++i) {
      CommandResult r = ctld_.Run("squeue -h -t all -o '" + field + "' -j " + job, false);
      if (Trim(r.out) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  ControllerProcess ctld_;
};

TEST_F(ReservationIntegrationTest, CreateShowUseUpdateDeleteAndRestart) {
  RegisterNodes();
  CommandResult r = ctld_.Run(
      "scontrol create reservation ReservationName=maint StartTime=now Duration=60 "
      "Nodes=n[1-2] Users=root Flags=MAINT");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "Reservation created: maint\n");
  r = ctld_.Run(
      "scontrol create reservation StartTime=now+1hour Duration=30 NodeCnt=1 "
      "Accounts=physics");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "Reservation created: root_2\n");
  r = ctld_.Run(
      "scontrol create reservation ReservationName=maint StartTime=now Duration=5 "
      "Nodes=n4 Users=root");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "Error creating the reservation: Duplicate reservation name\n");
  // root_2 took n1 (a maintenance reservation may be overlapped): a third
  // reservation there at the same time is refused.
  r = ctld_.Run("scontrol create reservation StartTime=now+1hour Duration=5 Nodes=n1 Users=root");
  EXPECT_EQ(r.out, "Error creating the reservation: Requested nodes are busy\n");

  r = ctld_.Run("scontrol show reservation maint");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("ReservationName=maint StartTime=", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Duration=01:00:00\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   Nodes=n[1-2] NodeCnt=2 CoreCnt=16 Features=(null) "
                       "PartitionName=(null) Flags=MAINT,SPEC_NODES\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Users=root Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(ctld_.Run("scontrol show reservation -o | wc -l", false).out, "2\n");
  EXPECT_EQ(ctld_.Run("sinfo -h -N -o '%N %t'", false).out,
            "n1 maint\nn2 maint\nn3 idle\nn4 idle\n");
  // sinfo -T: one line each, in sinfo's own columns (not scontrol's record).
  r = ctld_.Run("sinfo -T", false);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::vector<std::string_view> lines = Split(Trim(r.out), '\n');
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0],
            "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST");
  EXPECT_TRUE(lines[1].starts_with("maint        ACTIVE  ")) << r.out;
  EXPECT_TRUE(lines[1].ends_with("     01:00:00  n[1-2]")) << r.out;
  EXPECT_TRUE(lines[2].starts_with("root_2     INACTIVE  ")) << r.out;
  EXPECT_TRUE(lines[2].ends_with("     00:30:00  n1")) << r.out;
  // Every node answers: -d lists none of them, -r all four.
  EXPECT_EQ(ctld_.Run("sinfo -h -N -d -o %N", false).out, "");
  EXPECT_EQ(ctld_.Run("sinfo -h -N -r -o %N", false).out, "n1\nn2\nn3\nn4\n");

  // A job of the reservation runs on its nodes; one outside it stays off them.
  r = ctld_.Run("sbatch --parsable --reservation=maint -N 2 -t 10 --wrap=true");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string member(Trim(r.out));
  ASSERT_TRUE(WaitFor(member, "%T", "RUNNING")) << ctld_.Run("squeue -t all").out;
  EXPECT_EQ(ctld_.Run("squeue -h -o '%v|%N' -j " + member, false).out, "maint|n[1-2]\n");
  EXPECT_NE(ctld_.Run("scontrol show job " + member).out.find("\n   Reservation=maint\n"),
            std::string::npos);
  r = ctld_.Run("sbatch --parsable -N 3 -t 10 --wrap=true");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string outside(Trim(r.out));
  EXPECT_TRUE(WaitFor(outside, "%r", "ReqNodeNotAvail, Reserved for maintenance"))
      << ctld_.Run("squeue -t all").out;
  r = ctld_.Run("sbatch --reservation=nope --wrap=true");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("Requested reservation is invalid"), std::string::npos) << r.out;

  // A controller killed and started again still has both reservations.
  ctld_.Kill(SIGKILL);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  r = ctld_.Run("scontrol show reservation");
  EXPECT_NE(r.out.find("ReservationName=maint "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ReservationName=root_2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Accounts=physics"), std::string::npos) << r.out;

  r = ctld_.Run("scontrol update ReservationName=maint Duration=120");
  EXPECT_EQ(r.out, "Reservation updated.\n");
  EXPECT_NE(ctld_.Run("scontrol show reservation maint").out.find("Duration=02:00:00"),
            std::string::npos);
  EXPECT_EQ(ctld_.Run("scontrol delete reservation maint").exit_code, 0);
  r = ctld_.Run("scontrol show reservation maint");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "Reservation maint not found\n");
  r = ctld_.Run("scontrol delete reservation maint");
  EXPECT_EQ(r.out, "Error deleting the reservation: Requested reservation is invalid\n");
}

TEST_F(ReservationIntegrationTest, OrdinaryUsersMayNotManageReservations) {
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv not installed";
  chmod(ctld_.dir().path().c_str(), 0755);
  // The command reads the key as its owner (a key anyone may read is refused).
  ASSERT_EQ(chown((ctld_.dir().path() / "slurm.key").c_str(), 65534, 65534), 0);
  chmod(ctld_.conf().c_str(), 0644);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  CommandResult r = ctld_.Run(as_nobody +
                              "scontrol create reservation StartTime=now Duration=5 Nodes=n1 "
                              "Users=nobody");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "Error creating the reservation: Access/permission denied\n");
  r = ctld_.Run(as_nobody + "scontrol show reservation");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "No reservations in the system\n");
}

}  // namespace
}  // namespace rota
