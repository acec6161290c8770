// A backup controller on a host of its own (docs/reliability.md, "A backup
// controller"): SlurmctldHost=ctl (primary) and ctl2 (backup) sharing
// StateSaveLocation, SlurmctldTimeout=3, four submitters running on the
// login host while the primary is killed with SIGKILL, or cut off the
// network. Checked: acknowledged jobs lost (must be 0), duplicated ids (0),
// running jobs that survive (all); printed: seconds from the fault to the
// first acknowledged submission (docs/reliability.md; target 5 s after a
// kill). Then the primary's return.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/strings.h"
#include "tests/integration/netns_cluster_fixture.h"

namespace rota::testing {
namespace {

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class FailoverTest : public NetnsClusterTest {
 protected:
  std::vector<std::string> ControllerHosts() const override { return {"ctl", "ctl2"}; }
  std::string ExtraSettings() const override { return "SlurmctldTimeout=3\nMinJobAge=600\n"; }

  void SetUp() override {
    NetnsClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(WaitUntil([&] { return Holder() == "ctl"; }, std::chrono::seconds(20)))
        << Holder() << Logs();
  }

  // Who holds the controller lease now ("" when nobody does).
  std::string Holder() const {
    const std::string text = ReadFileText(Dir() + "/state/controller.lease");
    const size_t at = text.find("\"holder\":\"");
    if (at == std::string::npos) return "";
    const size_t start = at + 10;
    return text.substr(start, text.find('"', start) - start);
  }
  DaemonProcess& Controller(int index) { return *daemons_[1 + index]; }

  // Four submitters on the login host for `seconds`, each writing "SENT
  // ACKED ID" (wall clock ns) for every submission sbatch acknowledged.
  void StartSubmitters(int seconds) {
    for (int i = 0; i < 4; ++i) {
      const std::string out = Dir() + "/work/acked" + std::to_string(i) + ".txt";
      const std::string loop =
          "cd " + Dir() + "/work; export SLURM_CONF=" + Conf() + " PATH=" + BinDir() +
          ":$PATH; end=$(( $(date +%s) + " + std::to_string(seconds) +
          " )); while [ $(date +%s) -lt $end ]; do sent=$(date +%s%N); id=$(sbatch --parsable "
          "-o /dev/null --wrap=true 2>/dev/null) && echo \"$sent $(date +%s%N) $id\" >> " +
          out + "; done";
      submitters_.push_back(
          std::make_unique<DaemonProcess>(hosts_->On("login", {"/bin/sh", "-c", loop}),
                                          Dir() + "/submitter" + std::to_string(i) + ".log"));
    }
  }
  bool SubmittersDone() {
    return WaitUntil(
        [&] {
          return std::none_of(submitters_.begin(), submitters_.end(),
                              [](const auto& p) { return p->Running(); });
        },
        std::chrono::seconds(90));
  }
  struct Acked {
    int64_t sent_ns = 0;
    int64_t acked_ns = 0;
  };
  // Every acknowledged submission by id; `duplicates` counts ids
  // acknowledged twice.
  std::map<std::string, Acked> Acknowledged(int* duplicates) const {
    std::map<std::string, Acked> acked;
    *duplicates = 0;
    for (int i = 0; i < 4; ++i) {
      std::istringstream in(ReadFileText(Dir() + "/work/acked" + std::to_string(i) + ".txt"));
      Acked one;
      std::string id;
      while (in >> one.sent_ns >> one.acked_ns >> id) {
        if (!acked.emplace(id, one).second) ++*duplicates;
      }
    }
    return acked;
  }
  // The ids the controller in control knows, finished or not.
  std::set<std::string> KnownJobs() const {
    std::set<std::string> known;
    const std::string listed = Login("squeue -h -t all -o %i").out;
    for (std::string_view id : Split(listed, '\n')) {
      if (!Trim(id).empty()) known.emplace(Trim(id));
    }
    return known;
  }
  // Checks the four measures after a fault at `fault_ns`, and answers the
  // seconds from it to the first acknowledgement of a submission sent after it.
  double CheckNothingLost(int64_t fault_ns, const std::string& running_job) {
    int duplicates = 0;
    const std::map<std::string, Acked> acked = Acknowledged(&duplicates);
    EXPECT_EQ(duplicates, 0);
    int64_t first_after = 0;
    size_t before = 0;
    for (const auto& [id, one] : acked) {
      if (one.acked_ns <= fault_ns) ++before;
      if (one.sent_ns > fault_ns && (first_after == 0 || one.acked_ns < first_after)) {
        first_after = one.acked_ns;
      }
    }
    EXPECT_GT(before, 0u) << "no submission before the fault";
    EXPECT_GT(first_after, 0) << "no submission after the fault" << Logs();
    const std::set<std::string> known = KnownJobs();
    size_t lost = 0;
    for (const auto& [id, one] : acked) lost += known.contains(id) ? 0 : 1;
    EXPECT_EQ(lost, 0u) << acked.size() << " acknowledged, " << known.size() << " known";
    EXPECT_EQ(State(running_job), "RUNNING") << Logs();
    const double seconds = static_cast<double>(first_after - fault_ns) / 1e9;
    std::cout << "acknowledged " << acked.size() << " (" << before << " before the fault), lost "
              << lost << ", duplicated " << duplicates << ", first acknowledged after the fault "
              << seconds << " s\n";
    return seconds;
  }

  std::vector<std::unique_ptr<DaemonProcess>> submitters_;
};

TEST_F(FailoverTest, KillNineThePrimaryTheBackupTakesOverAndThePrimaryTakesBack) {
  CommandResult ping = Login("scontrol ping");
  EXPECT_EQ(ping.exit_code, 0) << ping.out;
  EXPECT_EQ(ping.out, "Slurmctld(primary) at ctl is UP\nSlurmctld(backup) at ctl2 is UP\n");
  const std::string running = Submit("-w node1", "sleep 300\n");
  ASSERT_TRUE(WaitForState(running, "RUNNING"));

  StartSubmitters(14);
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const int64_t killed = WallNs();
  ASSERT_EQ(kill(Controller(0).pid(), SIGKILL), 0);
  ASSERT_TRUE(SubmittersDone());
  EXPECT_EQ(Holder(), "ctl2");
  // The figure is printed for docs/reliability.md; the bound only says that
  // the backup took over at all (speed targets are not asserted in tests).
  const double seconds = CheckNothingLost(killed, running);
  EXPECT_LE(seconds, 30.0) << Logs();

  ping = Login("scontrol ping");
  EXPECT_EQ(ping.exit_code, 1);
  EXPECT_EQ(ping.out, "Slurmctld(primary) at ctl is DOWN\nSlurmctld(backup) at ctl2 is UP\n");

  // The primary comes back and takes control back; nothing is lost on the way.
  daemons_[1] = Start("ctl", "rotactld", {"-f", Conf()});
  EXPECT_TRUE(WaitUntil([&] { return Holder() == "ctl"; }, std::chrono::seconds(20)))
      << Holder() << Logs();
  const std::string after = Submit("", "true\n");
  EXPECT_TRUE(WaitForState(after, "COMPLETED")) << Logs();
  EXPECT_EQ(State(running), "RUNNING");
  // And `scontrol takeover` hands control to the backup on request.
  EXPECT_EQ(Login("scontrol takeover").exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Holder() == "ctl2"; }, std::chrono::seconds(20)))
      << Holder() << Logs();
  // Both up again once the primary serves in standby.
  EXPECT_TRUE(WaitUntil([&] { return Login("scontrol ping").exit_code == 0; }))
      << Login("scontrol ping").out;
  EXPECT_EQ(State(running), "RUNNING");
  Login("scancel " + running);
}

// The primary alive but cut off the network, still renewing its lease on the
// shared directory: the backup's wish for control makes it stop, and it does
// not take control back when its link returns.
TEST_F(FailoverTest, APrimaryCutOffTheNetworkHandsOverAndStaysInStandby) {
  const std::string running = Submit("-w node2", "sleep 300\n");
  ASSERT_TRUE(WaitForState(running, "RUNNING"));
  StartSubmitters(16);
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const int64_t cut = WallNs();
  ASSERT_EQ(hosts_->Run("ctl", "ip link set eth0 down").exit_code, 0);
  ASSERT_TRUE(SubmittersDone());
  EXPECT_EQ(Holder(), "ctl2") << Logs();
  const double seconds = CheckNothingLost(cut, running);
  EXPECT_LE(seconds, 30.0) << Logs();
  ASSERT_EQ(hosts_->Run("ctl", "ip link set eth0 up").exit_code, 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(Holder(), "ctl2");
  EXPECT_TRUE(WaitUntil([&] { return Login("scontrol ping").exit_code == 0; }))
      << Login("scontrol ping").out << Logs();
  EXPECT_EQ(State(running), "RUNNING");
  Login("scancel " + running);
}

}  // namespace
}  // namespace rota::testing
