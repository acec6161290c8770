// Runs the built programs the way users and job prologs do.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "testing/temp_dir.h"
#include "tests/integration/run_command.h"

namespace rota {
namespace {

namespace fs = std::filesystem;

using RunResult = testing::CommandResult;
using testing::RunProgram;

TEST(ScontrolHostlistTest, HostnamesPrintsOnePerLine) {
  RunResult r = RunProgram("scontrol", {"show", "hostnames", "gpu[01-16]"});
  EXPECT_EQ(r.exit_code, 0);
  std::string expected;
  for (int i = 1; i <= 16; ++i) expected += (i < 10 ? "gpu0" : "gpu") + std::to_string(i) + "\n";
  EXPECT_EQ(r.out, expected);
}

TEST(ScontrolHostlistTest, HostlistCompressesInGivenOrder) {
  EXPECT_EQ(RunProgram("scontrol", {"show", "hostlist", "gpu03,gpu01,gpu02,cpu1"}).out,
            "gpu[03,01-02],cpu1\n");
  EXPECT_EQ(RunProgram("scontrol", {"show", "hostlist", "tux2,tux1,tux2"}).out, "tux[2,1-2]\n");
  EXPECT_EQ(RunProgram("scontrol", {"show", "hostlistsorted", "tux2,tux1,tux2"}).out,
            "tux[1-2,2]\n");
  EXPECT_EQ(RunProgram("scontrol", {"SHOW", "HostList", "n1,n2,n3,n5"}).out, "n[1-3,5]\n");
}

TEST(ScontrolHostlistTest, HostnamesDefaultsToTheJobNodeList) {
  setenv("SLURM_JOB_NODELIST", "n[7-8]", 1);
  EXPECT_EQ(RunProgram("scontrol", {"show", "hostnames"}).out, "n7\nn8\n");
  unsetenv("SLURM_JOB_NODELIST");
  RunResult r = RunProgram("scontrol", {"show", "hostnames"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "scontrol: error: host list required\n");
}

TEST(ScontrolHostlistTest, HostlistFromAFile) {
  testing::TempDir dir;
  std::string path = dir.Write("hosts", "n3\nn1\nn2\n");
  EXPECT_EQ(RunProgram("scontrol", {"show", "hostlistsorted", path}).out, "n[1-3]\n");
}

TEST(ScontrolHostlistTest, MalformedExpressionFails) {
  RunResult r = RunProgram("scontrol", {"show", "hostnames", "gpu[3-1]"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("gpu[3-1]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("scontrol: error: ", 0), 0u) << r.out;
}

TEST(ScontrolHostlistTest, ControllerCommandsFailClearlyWithoutConfiguration) {
  setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
  RunResult r = RunProgram("scontrol", {"show", "job"});
  unsetenv("SLURM_CONF");
  EXPECT_EQ(r.exit_code, 1);
  // One line: the cause, once, without the report's own "error: ".
  EXPECT_EQ(r.out, "scontrol: error: /nonexistent/slurm.conf: cannot read file\n");
}

fs::path Examples() { return testing::SharedDir() / "examples"; }

TEST(RotactldCheckConfigTest, AcceptsEveryExample) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(Examples())) {
    if (!e.is_directory() || e.path().filename() == "broken") continue;
    ++seen;
    RunResult r =
        RunProgram("rotactld", {"-f", (e.path() / "slurm.conf").string(), "--check-config"});
    EXPECT_EQ(r.exit_code, 0) << e.path() << "\n" << r.out;
    EXPECT_NE(r.out.find("configuration OK"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("error:"), std::string::npos) << r.out;
  }
  EXPECT_GE(seen, 2);
}

TEST(RotactldCheckConfigTest, RejectsEveryBrokenExampleWithItsExpectedError) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(Examples() / "broken")) {
    if (!e.is_directory()) continue;
    ++seen;
    std::ifstream in(e.path() / "EXPECTED");
    std::string expected;
    std::getline(in, expected);
    RunResult r =
        RunProgram("rotactld", {"-f", (e.path() / "slurm.conf").string(), "--check-config"});
    EXPECT_EQ(r.exit_code, 1) << e.path();
    // Printed as "error: <path>/<file> line N: ...": the expectation is its tail.
    EXPECT_NE(r.out.find("/" + expected + "\n"), std::string::npos)
        << e.path() << "\nexpected: " << expected << "\ngot:\n"
        << r.out;
  }
  EXPECT_GE(seen, 4);
}

TEST(RotactldCheckConfigTest, WarnsAtEveryKeyThatHasNoEffect) {
  testing::TempDir dir;
  std::string conf = dir.Write("slurm.conf",
                               "ClusterName=c\n"
                               "SlurmctldHost=h\n"
                               "SlurmdUser=root\n"                         // line 3
                               "OverTimeLimit=5\n"                         // acted on
                               "NodeName=n1 CPUs=4 CoreSpecCount=1\n"      // line 5
                               "PartitionName=p Nodes=n1 RootOnly=no\n");  // line 6
  dir.Write("cgroup.conf", "ConstrainCores=yes\nMemorySwappiness=10\n");
  RunResult r = RunProgram("rotactld", {"-f", conf, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string cgroup = (dir.path() / "cgroup.conf").string();
  for (const std::string& expected :
       {"warning: " + conf + " line 3: SlurmdUser is accepted, has no effect in Rota\n",
        "warning: " + conf + " line 5: CoreSpecCount is accepted, has no effect in Rota\n",
        "warning: " + conf + " line 6: RootOnly is accepted, has no effect in Rota\n",
        "warning: " + cgroup + " line 2: MemorySwappiness is accepted, has no effect in Rota\n",
        std::string("configuration OK: cluster c, 1 nodes, 1 partitions, 4 warnings\n")}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("OverTimeLimit"), std::string::npos) << r.out;
}

TEST(RotactldCheckConfigTest, PrintsTheTrapsWithTheirLines) {
  testing::TempDir dir;
  std::string conf = dir.Write("slurm.conf",
                               "ClusterName=c\n"
                               "SlurmctldHost=h\n"
                               "GresTypes=gpu\n"
                               "SelectTypeParameters=CR_Core_Memory\n"  // line 4: no DefMemPerCPU
                               "SchedulerParameters=bf_window=60\n"     // line 5: one hour
                               "NodeName=g1 CPUs=8 RealMemory=64G Gres=gpu:2\n"
                               "PartitionName=p Nodes=g1 MaxTime=4:00:00\n");  // line 7
  dir.Write("cgroup.conf", "ConstrainDevices=no\n");
  RunResult r = RunProgram("rotactld", {"-f", conf, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string cgroup = (dir.path() / "cgroup.conf").string();
  for (const std::string& expected :
       {"warning: " + cgroup + " line 1: ConstrainDevices=no while g1 has GPUs: a job can open",
        "warning: " + conf +
            " line 5: bf_window is 01:00:00 (SchedulerParameters) but "
            "partition p (line 7) allows jobs of 04:00:00: backfill plans only bf_window ahead",
        "warning: " + conf +
            " line 4: SelectTypeParameters=CR_Core_Memory makes memory "
            "consumable but DefMemPerCPU is not set: a job without --mem",
        std::string("configuration OK: cluster c, 1 nodes, 1 partitions, 3 warnings\n")}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
}

TEST(RotactldCheckConfigTest, MissingFileAndBadOptions) {
  RunResult r = RunProgram("rotactld", {"-f", "/nonexistent/slurm.conf", "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("/nonexistent/slurm.conf: cannot read file"), std::string::npos) << r.out;
  EXPECT_EQ(RunProgram("rotactld", {"--no-such-option"}).exit_code, 1);
}

TEST(RotactldCheckConfigTest, UsesSlurmConfFromTheEnvironment) {
  setenv("SLURM_CONF", (Examples() / "heterogeneous" / "slurm.conf").c_str(), 1);
  RunResult r = RunProgram("rotactld", {"--check-config"});
  unsetenv("SLURM_CONF");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cluster mixed, 53 nodes, 4 partitions"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rota
