// Node events end to end: scontrol takes a node DOWN and back, the
// controller's outbox carries the event to rotadbd (also across a rotadbd
// outage), sacctmgr lists it and sreport counts it as Down.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
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

class NodeEventsTest : public ::testing::Test {
 protected:
  NodeEventsTest()
      : dbd_port_(testing::FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_)),
        dbd_(ctld_, dbd_port_) {}

  // `command`'s output once it reads `expected`: 10 s at most.
  std::string RunUntil(const std::string& command, const std::string& expected) {
    std::string out;
    for (int i = 0; i < 200; ++i) {
      out = ctld_.Run(command).out;
      if (out == expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return out;
  }
  void Scontrol(const std::string& args) {
    CommandResult r = ctld_.Run("scontrol update " + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.out;
  }
  static std::string Me() {
    passwd* pw = getpwuid(getuid());
    return pw != nullptr ? pw->pw_name : std::to_string(getuid());
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
};

TEST_F(NodeEventsTest, DownThenResumeIsOneEventWithStartAndEnd) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  Scontrol("NodeName=n2 State=DOWN Reason=\"fan broken\"");
  const std::string open = "n2|DOWN|fan broken|" + Me() + "|Unknown\n";
  EXPECT_EQ(RunUntil("sacctmgr -n -P list events format=NodeName,State,Reason,User,End", open),
            open)
      << ctld_.Log() << dbd_.Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // Some down time to count
  Scontrol("NodeName=n2 State=RESUME");

  // One event, now closed: Slurm's default columns, its start before its end.
  std::string listed;
  for (int i = 0; i < 200; ++i) {
    listed = ctld_.Run("sacctmgr -P list events").out;
    if (listed.find("|Unknown|") == std::string::npos && listed.find("n2") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<std::string_view> lines = Split(Trim(listed), '\n');
  ASSERT_EQ(lines.size(), 2u) << listed;
  EXPECT_EQ(lines[0], "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User");
  std::vector<std::string_view> f = Split(lines[1], '|');
  ASSERT_EQ(f.size(), 7u) << lines[1];
  EXPECT_EQ(f[0], "itest");
  EXPECT_EQ(f[1], "n2");
  EXPECT_EQ(f[2].size(), 19u);
  EXPECT_EQ(f[3].size(), 19u);
  EXPECT_LT(f[2], f[3]);  // ISO times compare as text
  EXPECT_EQ(f[4], "DOWN");
  EXPECT_EQ(f[5], "fan broken");
  EXPECT_EQ(f[6], Me());
  // Filters.
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P list events where nodes=n[1,3] format=NodeName").out, "");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P list events nodes=n2 format=NodeName").out, "n2\n");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P list events start=now+1hour format=NodeName").out, "");
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P list events states=DOWN format=NodeName").out, "");

  // sreport: 8 CPUs down for 2 s or more, and everything adds up.
  CommandResult report = ctld_.Run("sreport -n -P -t seconds cluster utilization start=now-1hour");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  std::vector<std::string_view> r = Split(Trim(report.out), '|');
  ASSERT_EQ(r.size(), 7u) << report.out;
  const uint64_t down = *ParseUint(r[2]);
  EXPECT_GE(down, 8u * 2) << report.out;
  EXPECT_LE(down, 8u * 30) << report.out;
  EXPECT_EQ(*ParseUint(r[1]) + down + *ParseUint(r[4]), *ParseUint(r[6])) << report.out;

  // The association reports on rotadbd's tree: root and its root user, nothing used.
  report = ctld_.Run("sreport -n -P cluster AccountUtilizationByUser start=now-1hour");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  lines = Split(Trim(report.out), '\n');
  ASSERT_EQ(lines.size(), 2u) << report.out;
  EXPECT_EQ(lines[0], "itest|root|||0|0");
  EXPECT_EQ(lines[1].substr(0, 17), "itest| root|root|") << report.out;
  report = ctld_.Run("sreport -P job SizesByAccount start=now-1hour Grouping=8");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(report.out.find("Cluster|Account|0-7 CPUs|>= 8 CPUs|% of cluster\n"), std::string::npos)
      << report.out;
}

TEST_F(NodeEventsTest, EventsWaitWhileRotadbdIsDownAndArriveOnce) {
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"});
  dbd_.Kill(SIGKILL);
  Scontrol("NodeName=n3 State=DRAIN Reason=memtest");
  Scontrol("NodeName=n4 State=DOWN Reason=psu");
  Scontrol("NodeName=n3 State=RESUME");
  ASSERT_TRUE(dbd_.Start()) << dbd_.Log();
  const std::string expected = "n3|DRAIN|memtest|0\nn4|DOWN|psu|1\n";
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out.clear();
    std::string listed =
        ctld_.Run("sacctmgr -n -P list events format=NodeName,State,Reason,End").out;
    // End as "still open or not", since its exact time varies.
    for (std::string_view line : Split(Trim(listed), '\n')) {
      if (line.empty()) continue;
      const size_t bar = line.rfind('|');
      out +=
          std::string(line.substr(0, bar)) + (line.substr(bar + 1) == "Unknown" ? "|1\n" : "|0\n");
    }
    if (out == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(out, expected) << ctld_.Log() << dbd_.Log();
  EXPECT_EQ(ctld_.Run("sacctmgr -n -P list events states=DOWN format=NodeName").out, "n4\n");
}

}  // namespace
}  // namespace rota
