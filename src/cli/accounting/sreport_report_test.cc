#include "cli/accounting/sreport_report.h"

#include <gtest/gtest.h>

#include "cli/accounting/sreport_test_support.h"

namespace rota::cli {
namespace {

using sreport_test::Job;
using sreport_test::kDay;
using sreport_test::Parsable;

TEST(SreportTime, UnitsAndAbbreviations) {
  EXPECT_EQ(ParseReportTime("Minutes")->unit, ReportUnit::kMinutes);
  EXPECT_EQ(ParseReportTime("s")->unit, ReportUnit::kSeconds);
  EXPECT_FALSE(ParseReportTime("s")->percent);
  EXPECT_TRUE(ParseReportTime("hourper")->percent);
  EXPECT_EQ(ParseReportTime("HourPer")->unit, ReportUnit::kHours);
  EXPECT_TRUE(ParseReportTime("minp")->percent);
  EXPECT_FALSE(ParseReportTime("fortnights").ok());
}

TEST(SreportTres, KnownNamesOnly) {
  auto t = ParseReportTres("CPU,gres/gpu:a100");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<std::string>{"cpu", "gres/gpu:a100"}));
  EXPECT_EQ(ParseReportTres("billing").status().message(),
            "TRES billing is not reported (cpu, mem, node, gres/gpu)");
}

TEST(SreportAllocated, OnlyThePartInsideTheWindowCounts) {
  const ReportWindow w{kDay, kDay + 86400};
  // 8 GPUs from an hour before the window to an hour into it: one hour counts.
  auto j = Job("a", "x", kDay - 3600, kDay + 3600, "cpu=16,gres/gpu=8,node=2");
  EXPECT_EQ(AllocatedTresSeconds(j, "gres/gpu", w, 0), 8.0 * 3600);
  EXPECT_EQ(AllocatedTresSeconds(j, "cpu", w, 0), 16.0 * 3600);
  EXPECT_EQ(AllocatedTresSeconds(j, "gres/gpu:a100", w, 0), 0.0);
  // Still running: until `now`.
  auto running = Job("a", "x", kDay + 86400 - 60, 0, "cpu=2");
  EXPECT_EQ(AllocatedTresSeconds(running, "cpu", w, kDay + 86400 + 500), 2.0 * 60);
  // Never started.
  EXPECT_EQ(AllocatedTresSeconds(Job("a", "x", 0, 0, "cpu=2"), "cpu", w, kDay), 0.0);
}

TEST(SreportUtilization, AllocatedIdleAndReportedPerTres) {
  const ReportWindow w{kDay, kDay + 86400};
  std::vector<wire::AccountingJob> jobs = {
      Job("a", "x", kDay, kDay + 6 * 3600, "cpu=32,gres/gpu=8"),  // 6 h of the whole machine
      Job("b", "y", kDay + 3600, kDay + 2 * 3600, "cpu=4,gres/gpu=2"),
  };
  ReportOptions o = Parsable();
  o.tres_named = true;
  o.time.unit = ReportUnit::kHours;
  std::string text = ClusterUtilizationReport("c1", {"cpu", "gres/gpu"},
                                              {{"cpu", 64}, {"gres/gpu", 16}}, jobs, w, o);
  EXPECT_EQ(text,
            "--------------------------------------------------------------------------------\n"
            "Cluster Utilization 2027-01-15T00:00:00 - 2027-01-15T23:59:59\n"
            "Usage reported in TRES Hours\n"
            "--------------------------------------------------------------------------------\n"
            "Cluster|TRES Name|Allocated|Down|PLND Down|Idle|Planned|Reported\n"
            "c1|cpu|196|0|0|1340|0|1536\n"
            "c1|gres/gpu|50|0|0|334|0|384\n");
}

TEST(SreportUtilization, AlignedLayoutAndPercentages) {
  const ReportWindow w{kDay, kDay + 86400};
  std::vector<wire::AccountingJob> jobs = {Job("a", "x", kDay, kDay + 43200, "cpu=10")};
  ReportOptions o;
  o.no_header = false;
  std::string text = ClusterUtilizationReport("a-long-name", {"cpu"}, {{"cpu", 10}}, jobs, w, o);
  EXPECT_NE(text.find("Usage reported in CPU Minutes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n"
                      "--------- -------- -------- -------- -------- -------- -------- \n"
                      "a-long-n+     7200        0        0     7200        0    14400 \n"),
            std::string::npos)
      << text;
  o.time.percent = true;
  o.no_header = true;
  o.layout = SacctLayout::kParsable;
  EXPECT_EQ(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 10}}, jobs, w, o),
            "c1|7200(50.00%)|0(0.00%)|0(0.00%)|7200(50.00%)|0(0.00%)|14400(100.00%)|\n");
}

TEST(SreportUtilization, RecordsBeyondTheMachineDoNotMakeIdleNegative) {
  const ReportWindow w{kDay, kDay + 3600};
  std::vector<wire::AccountingJob> jobs = {Job("a", "x", kDay, kDay + 3600, "cpu=8"),
                                           Job("a", "x", kDay, kDay + 3600, "cpu=8")};
  ReportOptions o = Parsable();
  o.no_header = true;
  EXPECT_EQ(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 8}}, jobs, w, o),
            "c1|480|0|0|0|0|480\n");
}

wire::NodeEvent Event(const std::string& node, int64_t start, int64_t end,
                      const std::string& tres) {
  wire::NodeEvent e;
  e.set_node(node);
  e.set_time_start(start);
  e.set_time_end(end);
  e.set_state("DOWN");
  e.set_cpus(8);
  e.set_tres(tres);
  return e;
}

TEST(SreportUtilization, DownIsTheTresOfNodeEventsInsideTheWindow) {
  const ReportWindow w{kDay, kDay + 86400};
  std::vector<wire::AccountingJob> jobs = {
      Job("a", "x", kDay, kDay + 6 * 3600, "cpu=32,gres/gpu=8")};
  const std::string node_tres = "cpu=8,mem=64G,node=1,gres/gpu=4";
  std::vector<wire::NodeEvent> events = {
      Event("n1", kDay - 7200, kDay - 3600, node_tres),          // Before the window: nothing
      Event("n2", kDay + 3600, kDay + 3 * 3600, node_tres),      // 2 h
      Event("n3", kDay + 20 * 3600, 0, node_tres),               // Open: the last 4 h
      Event("n4", kDay + 23 * 3600, kDay + 30 * 3600, "cpu=8"),  // 1 h; no GPUs recorded
  };
  ReportOptions o = Parsable();
  o.tres_named = true;
  o.no_header = true;
  o.time.unit = ReportUnit::kHours;
  // cpu: 8 x (2 + 4 + 1) = 56 h down; gres/gpu: 4 x (2 + 4) = 24 h.
  EXPECT_EQ(ClusterUtilizationReport("c1", {"cpu", "gres/gpu"}, {{"cpu", 64}, {"gres/gpu", 16}},
                                     jobs, w, o, events),
            "c1|cpu|192|56|0|1288|0|1536\n"
            "c1|gres/gpu|48|24|0|312|0|384\n");
  EXPECT_EQ(DownTresSeconds(events[2], "node", w, o.now), 4.0 * 3600);
  // A record without TRES counts its CPUs.
  wire::NodeEvent bare = Event("n5", kDay, kDay + 60, "");
  EXPECT_EQ(DownTresSeconds(bare, "cpu", w, o.now), 8.0 * 60);
  EXPECT_EQ(DownTresSeconds(bare, "gres/gpu", w, o.now), 0.0);
  // A job's idle GPUs keep the node in service.
  wire::NodeEvent idle = Event("n6", kDay, kDay + 60, node_tres);
  idle.set_state("GPU_IDLE");
  EXPECT_EQ(DownTresSeconds(idle, "cpu", w, o.now), 0.0);

  // Down never takes Idle below zero: a whole machine down while busy.
  std::vector<wire::NodeEvent> all_down = {Event("n1", kDay, kDay + 86400, "cpu=64")};
  o.time.unit = ReportUnit::kHours;
  o.tres_named = false;
  o.time.percent = true;
  EXPECT_EQ(ClusterUtilizationReport("c1", {"cpu"}, {{"cpu", 64}}, jobs, w, o, all_down),
            "c1|192(12.50%)|1344(87.50%)|0(0.00%)|0(0.00%)|0(0.00%)|1536(100.00%)\n");
}

TEST(SreportTopUsage, RanksUsersByTheFirstTresPerAccountOrGrouped) {
  const ReportWindow w{kDay, kDay + 86400};
  std::vector<wire::AccountingJob> jobs = {
      Job("alice", "phys", kDay, kDay + 3600, "cpu=4,gres/gpu=1"),
      Job("alice", "chem", kDay, kDay + 3600, "cpu=4,gres/gpu=1"),
      Job("bob", "phys", kDay, kDay + 3600, "cpu=1,gres/gpu=4"),
      Job("carol", "phys", kDay, kDay + 60, "cpu=1"),
  };
  ReportOptions o = Parsable();
  o.no_header = true;
  o.tres_named = true;
  std::map<std::string, uint64_t> cap = {{"gres/gpu", 16}, {"cpu", 64}};
  // By GPU time: bob first; alice's two accounts are two lines; carol used no GPU.
  EXPECT_EQ(UserTopUsageReport("c1", {"gres/gpu"}, cap, jobs, w, 10, false, {{"bob", "Bob B"}}, o),
            "c1|bob|Bob B|phys|gres/gpu|240|0\n"
            "c1|alice||chem|gres/gpu|60|0\n"
            "c1|alice||phys|gres/gpu|60|0\n");
  // Grouped and by CPU time; TopCount 1.
  EXPECT_EQ(UserTopUsageReport("c1", {"cpu"}, cap, jobs, w, 1, true, {}, o),
            "c1|alice||chem,phys|cpu|480|0\n");
  o.no_header = false;
  o.tres_named = false;
  std::string text = UserTopUsageReport("c1", {"cpu"}, cap, jobs, w, 2, false, {}, o);
  EXPECT_NE(text.find("Top 2 Users 2027-01-15T00:00:00 - 2027-01-15T23:59:59 (86400 secs)\n"
                      "Usage reported in CPU Minutes\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Cluster|Login|Proper Name|Account|Used|Energy\n"), std::string::npos);
}

}  // namespace
}  // namespace rota::cli
