// Idle GPUs end to end: a real rotactld, rotadbd and two rotad whose fake GPUs
// read 1%. rotad tells the controller once a job's GPUs have been idle for its
// partition's GpuIdlePolicy period; the job is flagged (squeue -O GpuIdle,
// scontrol show job), rotadbd keeps a GPU_IDLE event, and the policy cancels
// the job after its grace. And a job's process found on a GPU it was not
// given is named in rotad's log.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "common/strings.h"
#include "tests/integration/scripted_gpus_cluster_test.h"

namespace rota {
namespace {

using testing::WaitUntil;

class GpuIdleTest : public testing::ScriptedGpusClusterTest {
 protected:
  // Every partition after this line (the cluster's one) flags after 3 s
  // below 5% and cancels 3 s later.
  std::string GpuSettings() const override {
    return "PartitionName=DEFAULT GpuIdlePolicy=threshold=5,period=0:03,action=cancel,grace=0:03\n";
  }
  // Node 1's GPUs sit at 1%; node 2's work at 80%.
  std::string GpuScript(int node, int gpu) const override {
    return node == 1 ? "0 Util=1 MemUsed=1G MemTotal=80G Power=60\n"
                     : ScriptedGpusClusterTest::GpuScript(node, gpu);
  }
};

TEST_F(GpuIdleTest, AJobOnIdleGpusIsFlaggedThenCancelledAndAccountingKeepsTheEvent) {
  const std::string idle = SubmitScript("-N1 -w " + cluster_->Node(1) + " --gpus=2", "sleep 60\n");
  const std::string busy = SubmitScript("-N1 -w " + cluster_->Node(2) + " --gpus=2", "sleep 60\n");
  ASSERT_TRUE(WaitForState(idle, "RUNNING"));
  ASSERT_TRUE(WaitForState(busy, "RUNNING"));

  std::string flagged;
  ASSERT_TRUE(WaitUntil(
      [&] {
        flagged = Trim(cluster_->Run("squeue -h -j " + idle + " -O GpuIdle").out);
        return flagged != "N/A" && !flagged.empty();
      },
      std::chrono::seconds(20)))
      << flagged;
  const std::string shown = cluster_->Run("scontrol show job " + idle).out;
  EXPECT_NE(shown.find("GpuIdleSince="), std::string::npos) << shown;
  EXPECT_NE(shown.find("GpuIdleUtil=1.0%"), std::string::npos) << shown;
  EXPECT_NE(shown.find("GpuIdleActionTime="), std::string::npos) << shown;

  // Cancelled after the grace; the busy job runs on.
  std::vector<std::string> row = SacctOnce(idle, "CANCELLED by 0", "JobID");
  ASSERT_EQ(row.size(), 2u) << cluster_->Run("sacct -j " + idle).out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -j " + busy + " -o %T").out), "RUNNING");
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -j " + busy + " -O GpuIdle").out), "N/A");

  // rotadbd keeps the span, closed by the job's end.
  std::string events;
  ASSERT_TRUE(WaitUntil(
      [&] {
        events = cluster_
                     ->Run("sacctmgr -n -P list events Nodes=" + cluster_->Node(1) +
                           " Format=State,Reason,End")
                     .out;
        return events.find("GPU_IDLE|job " + idle + ": GPUs below 5% (mean 1.0%)|") !=
                   std::string::npos &&
               events.find("Unknown") == std::string::npos;
      },
      std::chrono::seconds(20)))
      << events;

  // sreport's GPU efficiency (Rota's own report), once the busy job has
  // ended too: both jobs are root's, in no account; 2 GPUs at 1% and 2 at 80%
  // for some seconds each, so the efficiency lies between.
  cluster_->Run("scancel " + busy);
  ASSERT_EQ(SacctOnce(busy, "CANCELLED by 0", "JobID").size(), 2u);
  const std::string report =
      cluster_->Run("sreport -n -P -t seconds account GpuEfficiency start=now-1hours").out;
  std::vector<std::string> cells;
  for (std::string_view c : Split(Trim(report), '|')) cells.emplace_back(c);
  ASSERT_EQ(cells.size(), 7u)
      << report;  // Cluster|Account|Allocated|Used|Efficiency|Unmeasured|Jobs
  EXPECT_EQ(cells[6], "2") << report;
  EXPECT_EQ(cells[5], "0") << report;
  std::optional<double> efficiency = ParseDouble(cells[4].substr(0, cells[4].size() - 1));
  ASSERT_TRUE(efficiency.has_value()) << report;
  EXPECT_GT(*efficiency, 1.0) << report;
  EXPECT_LT(*efficiency, 80.0) << report;
}

TEST_F(GpuIdleTest, AProcessOnAGpuItsJobWasNotGivenIsNamedInTheLog) {
  const std::string pid_file = cluster_->work_dir() + "/pid";
  const std::string job = SubmitScript(
      "-N1 -w " + cluster_->Node(2) + " --gpus=1",
      "echo $$ > " + pid_file + ".tmp\nmv " + pid_file + ".tmp " + pid_file + "\nsleep 60\n");
  ASSERT_TRUE(WaitForState(job, "RUNNING"));
  std::string pid;
  ASSERT_TRUE(WaitUntil([&] { return !(pid = Trim(testing::ReadFileText(pid_file))).empty(); }));
  // The driver lists the script's shell on both GPUs of node 2: one of them
  // is not the job's.
  for (int g = 0; g < testing::NodedCluster::kGpusPerNode; ++g) {
    std::ofstream((cluster_->dir().path() / Script(2, g)).string(), std::ios::app)
        << "0 Pids=" << pid << "\n";
  }
  std::string logs;
  ASSERT_TRUE(WaitUntil(
      [&] {
        logs = cluster_->NodeLogs();
        return logs.find("process " + pid + " uses GPU") != std::string::npos;
      },
      std::chrono::seconds(20)));
  const std::string warning = "job " + job + ": process " + pid + " uses GPU";
  const size_t at = logs.find(warning);
  ASSERT_NE(at, std::string::npos) << logs;
  EXPECT_EQ(logs.find("process " + pid + " uses GPU", at + warning.size()), std::string::npos)
      << "one GPU is the job's own, and a warning is given once";
  cluster_->Run("scancel " + job);
}

// A job on both nodes: node 1's GPUs idle, node 2's busy, then idle, then
// busy again. Node 2 learns of its share from the heartbeat (every 2 s here).
class GpuIdleAcrossNodesTest : public testing::ScriptedGpusClusterTest {
 protected:
  std::string GpuSettings() const override {
    return "SlurmdTimeout=6\n"
           "PartitionName=DEFAULT GpuIdlePolicy=threshold=5,period=0:03\n";
  }
  std::string GpuScript(int node, int gpu) const override {
    return node == 1 ? "0 Util=1 MemUsed=1G MemTotal=80G Power=60\n"
                     : ScriptedGpusClusterTest::GpuScript(node, gpu);
  }
  // From now on node 2's GPUs read `util` percent.
  void SetNode2Util(int util) {
    for (int g = 0; g < testing::NodedCluster::kGpusPerNode; ++g) {
      std::ofstream((cluster_->dir().path() / Script(2, g)).string(), std::ios::app)
          << "0 Util=" << util << "\n";
    }
  }
  std::string GpuIdleOf(const std::string& job) {
    return std::string(Trim(cluster_->Run("squeue -h -j " + job + " -O GpuIdle").out));
  }
};

TEST_F(GpuIdleAcrossNodesTest, AJobIsIdleOnlyWhenItsGpusAreIdleOnEveryNode) {
  const std::string job = SubmitScript("-N2 --gpus-per-node=2", "sleep 60\n");
  ASSERT_TRUE(WaitForState(job, "RUNNING"));
  // Node 1 has told the controller its GPUs are idle and node 2 watches its
  // share: the job is not flagged, its GPUs on node 2 being busy.
  std::string logs;
  ASSERT_TRUE(WaitUntil(
      [&] {
        logs = cluster_->NodeLogs();
        return logs.find("job " + job + ": GPUs idle") != std::string::npos &&
               logs.find("job " + job + ": watching its GPUs 0-1 here for idleness") !=
                   std::string::npos;
      },
      std::chrono::seconds(20)))
      << logs;
  // Past node 2's period, were it judged idle.
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_EQ(GpuIdleOf(job), "N/A");

  SetNode2Util(2);
  std::string flagged;
  ASSERT_TRUE(WaitUntil(
      [&] {
        flagged = GpuIdleOf(job);
        return flagged != "N/A" && !flagged.empty();
      },
      std::chrono::seconds(20)))
      << flagged;
  EXPECT_NE(cluster_->Run("scontrol show job " + job).out.find("GpuIdleUtil="), std::string::npos);

  SetNode2Util(90);
  ASSERT_TRUE(WaitUntil([&] { return GpuIdleOf(job) == "N/A"; }, std::chrono::seconds(20)))
      << "busy again on node 2 unflags the job";

  // Idle again, then node 2's rotad crashes and comes back: it cannot know
  // it said "idle" before, so it tells the first busy sample.
  SetNode2Util(2);
  ASSERT_TRUE(WaitUntil([&] { return GpuIdleOf(job) != "N/A"; }, std::chrono::seconds(20)));
  cluster_->StopNode(2, SIGKILL);
  SetNode2Util(90);
  ASSERT_TRUE(cluster_->StartNode(2, NodeEnvironment(2)));
  ASSERT_TRUE(WaitUntil([&] { return GpuIdleOf(job) == "N/A"; }, std::chrono::seconds(20)))
      << cluster_->NodeLogs();
  cluster_->Run("scancel " + job);
}

}  // namespace
}  // namespace rota
