// rotactld started for real, driven by the built commands over loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "api/methods.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "rota.pb.h"
#include "rpc/client.h"
#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ctld_.Start()) << ctld_.Log(); }

  void RegisterNodes() { testing::RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"}); }
  void ReportExit(uint32_t job_id, uint32_t wait_status) {
    testing::ReportJobExit(ctld_, job_id, wait_status);
  }
  bool WaitForState(const std::string& job, const std::string& state) {
    return testing::WaitForJobState(ctld_, job, state);
  }

  ControllerProcess ctld_{"TrackWCKey=yes\n"};  // scancel --wckey needs jobs that keep theirs
};

TEST_F(ControllerTest, SubmitListAndCancel) {
  CommandResult r = ctld_.Run("sbatch --hold -J first --wrap=true");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "Submitted batch job 1\n");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "2\n");
  r = ctld_.Run("squeue");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    1     batch    first     root PD       0:00      1 (JobHeldUser)"),
            std::string::npos)
      << r.out;
  nlohmann::json json = nlohmann::json::parse(ctld_.Run("squeue --json", false).out);
  ASSERT_EQ(json["jobs"].size(), 2u);
  EXPECT_EQ(json["jobs"][0]["job_id"], 1);
  EXPECT_EQ(json["jobs"][0]["name"], "first");
  EXPECT_EQ(json["jobs"][0]["job_state"], "PENDING");
  EXPECT_EQ(json["jobs"][0]["state_reason"], "JobHeldUser");
  EXPECT_EQ(json["jobs"][0]["time_limit"], 60);
  EXPECT_EQ(ctld_.Run("squeue -h -n first -o %i").out, "1\n");
  // -i 1: the listing again each second, a blank line after each, until killed.
  const std::string iterated = ctld_.Run("timeout 2.5 squeue -h -i 1 -o %i -j 1").out;
  EXPECT_EQ(iterated.rfind("1\n\n1\n\n", 0), 0u) << iterated;
  const std::string once = ctld_.Run("sinfo -h -o %P").out;
  const std::string sinfo_iterated = ctld_.Run("timeout 1.5 sinfo -h -i 1 -o %P").out;
  EXPECT_EQ(sinfo_iterated.rfind(once + "\n" + once + "\n", 0), 0u) << sinfo_iterated;
  EXPECT_EQ(ctld_.Run("squeue -h --name=wrap,first -o %i").out, "1\n2\n");
  EXPECT_EQ(ctld_.Run("scancel 1").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -o '%i|%T'").out, "1|CANCELLED\n2|PENDING\n");
  r = ctld_.Run("scancel 77");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "scancel: error: Kill job error on job id 77: Invalid job id specified\n");
  // One unknown job id is an error, as Slurm's squeue says it; a known job
  // that the other options leave out, or several ids, list nothing.
  r = ctld_.Run("squeue -j 77");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "slurm_load_jobs error: Invalid job id specified\n");
  r = ctld_.Run("squeue -h -j 1 -t PD");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  r = ctld_.Run("squeue -h -j 77,78");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

// scancel -A/-q/-R/-w/--wckey: the listed jobs that pass, as Slurm's scancel
// filters them; with ids, only those of them.
TEST_F(ControllerTest, ScancelFiltersTheJobsItSignals) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -A physics --wrap=true").out, "1\n");
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -A chem --wckey=sim --wrap=true").out, "2\n");
  ASSERT_EQ(ctld_.Run("sbatch --parsable --hold -A physics --wrap=true").out, "3\n");
  EXPECT_EQ(ctld_.Run("scancel -A physics 3").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -S i -o '%i|%T'").out,
            "1|PENDING\n2|PENDING\n3|CANCELLED\n");
  EXPECT_EQ(ctld_.Run("scancel -A nobody").exit_code, 0);         // Nothing matches: nothing to do
  EXPECT_EQ(ctld_.Run("scancel -w n1 -A physics").exit_code, 0);  // Job 1 is on no node yet
  EXPECT_EQ(ctld_.Run("scancel --wckey=sim").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -t all -S i -o '%i|%T'").out,
            "1|PENDING\n2|CANCELLED\n3|CANCELLED\n");
}

TEST_F(ControllerTest, RefusedSubmissionsSaySoAndLeaveNothing) {
  CommandResult r = ctld_.Run("sbatch -p nosuch --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "sbatch: error: Batch job submission failed: Invalid partition name specified\n");
  r = ctld_.Run("sbatch --gres=gpu:9 --wrap=true");
  EXPECT_EQ(r.out,
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  r = ctld_.Run("sbatch --mem=600G --wrap=true");
  EXPECT_EQ(r.out,
            "sbatch: error: Memory specification can not be satisfied\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  EXPECT_EQ(ctld_.Run("squeue -h -t all").out, "");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --wrap=true").out, "1\n");
}

TEST_F(ControllerTest, TestOnlySaysWhereAJobWouldStartAndQueuesNothing) {
  CommandResult r = ctld_.Run("sbatch --test-only -n 2 --wrap=true");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("would not start now"), std::string::npos) << r.out;  // No node is up.
  RegisterNodes();
  r = ctld_.Run("sbatch --test-only -n 2 --wrap=true");
  EXPECT_NE(r.out.find("to start at "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" using 2 processors on nodes n1 in partition batch"), std::string::npos)
      << r.out;
  EXPECT_EQ(ctld_.Run("squeue -h -t all").out, "");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "1\n");
}

TEST_F(ControllerTest, JobRunsOnRegisteredNodesAndCompletes) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable --gres=gpu:2 -t 10 --wrap=true").out, "1\n");
  EXPECT_TRUE(WaitForState("1", "PENDING"));
  RegisterNodes();
  ASSERT_TRUE(WaitForState("1", "RUNNING")) << ctld_.Run("squeue -t all").out;
  CommandResult show = ctld_.Run("scontrol show job 1");
  EXPECT_NE(show.out.find("JobState=RUNNING Reason=None"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("TRES=cpu=1,mem=1G,node=1,billing=1,gres/gpu=2,gres/gpu:a100=2"),
            std::string::npos)
      << show.out;
  EXPECT_NE(ctld_.Run("sinfo -h -o %t").out.find("mix"), std::string::npos);
  ReportExit(1, 3 << 8);
  ASSERT_TRUE(WaitForState("1", "FAILED"));
  EXPECT_NE(ctld_.Run("scontrol show job 1").out.find("ExitCode=3:0"), std::string::npos);
}

TEST_F(ControllerTest, HoldReleaseUpdateAndArrays) {
  ASSERT_EQ(ctld_.Run("sbatch --parsable --array=1-10%3 --begin=now+3600 --wrap=true").out, "1\n");
  EXPECT_TRUE(WaitForState("1", "PENDING"));
  EXPECT_EQ(ctld_.Run("squeue -h -o '%i|%r'").out, "1_[1-10%3]|BeginTime\n");
  EXPECT_EQ(ctld_.Run("scontrol hold 1").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -o %r").out, "JobHeldAdmin\n");
  EXPECT_EQ(ctld_.Run("scontrol release 1").exit_code, 0);
  EXPECT_EQ(ctld_.Run("scontrol update JobId=1 TimeLimit=5:00").exit_code, 0);
  EXPECT_EQ(ctld_.Run("squeue -h -o %l").out, "5:00\n");
  CommandResult r = ctld_.Run("scontrol update JobId=1 Frobnicate=3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Update of Frobnicate is not supported"), std::string::npos) << r.out;
  EXPECT_EQ(ctld_.Run("squeue -h -r -o %i").out.size(), std::string("1_1\n").size() * 9 + 5);
  EXPECT_EQ(ctld_.Run("squeue -h --array-unique -o %i").out, ctld_.Run("squeue -h -r -o %i").out);
  EXPECT_EQ(ctld_.Run("squeue -h -R maintenance -o %i").out, "");  // In no reservation
}

TEST_F(ControllerTest, StateSurvivesKillAndIdsAreNotReused) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(ctld_.Run("sbatch --hold --wrap=true").exit_code, 0);
  ASSERT_EQ(ctld_.Run("scancel 2").exit_code, 0);
  ctld_.Kill(SIGKILL);
  ASSERT_TRUE(ctld_.Start()) << ctld_.Log();
  EXPECT_EQ(ctld_.Run("squeue -h -t all -S i -o '%i|%T'").out,
            "1|PENDING\n2|CANCELLED\n3|PENDING\n");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold --wrap=true").out, "4\n");
}

TEST_F(ControllerTest, BadCredentialsAreRefusedAndChangeNothing) {
  rpc::RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", ctld_.port(), std::chrono::seconds(2)).ok());
  wire::SubmitJobRequest req;
  req.mutable_spec()->set_name("forged");
  auto answer = client.Call(api::kSubmitJob, "not a credential", req.SerializeAsString(),
                            std::chrono::seconds(5));
  ASSERT_TRUE(answer.ok());
  EXPECT_FALSE(answer->ok());
  EXPECT_EQ(answer->ToStatus().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ctld_.Run("squeue -h -t all").out, "");
  // Refused before its body was read (the credential screen), and logged with the peer.
  EXPECT_NE(ctld_.Log().find("rpc: closing connection from 127.0.0.1"), std::string::npos)
      << ctld_.Log();
}

TEST_F(ControllerTest, ReconfigureKeepsJobsAndRefusesBadConfiguration) {
  ASSERT_EQ(ctld_.Run("sbatch --hold --wrap=true").exit_code, 0);
  std::string good = ctld_.dir().path() / "slurm.conf";
  {
    std::ofstream out(good, std::ios::app);
    out << "PartitionName=extra Nodes=n1\n";
  }
  std::ifstream saved_in(good);
  std::string saved((std::istreambuf_iterator<char>(saved_in)), {});
  EXPECT_EQ(ctld_.Run("scontrol reconfigure").exit_code, 0);
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold -p extra --wrap=true").out, "2\n");
  {
    std::ofstream out(good, std::ios::app);
    out << "PartitionName=broken Nodes=n9\n";
  }
  CommandResult r = ctld_.Run("scontrol reconfigure");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("partition broken names node n9 that no NodeName line defines"),
            std::string::npos)
      << r.out;
  // The controller kept the configuration it had; so do the commands once the file is mended.
  std::ofstream(good) << saved;
  EXPECT_EQ(ctld_.Run("squeue -h -o %i").out, "1\n2\n");
  EXPECT_EQ(ctld_.Run("sbatch --parsable --hold -p extra --wrap=true").out, "3\n");
}

// Several clients submit while the controller is killed at random moments:
// every acknowledged job must exist after the restarts, with its own id.
TEST(ControllerCrashTest, AcknowledgedJobsSurviveSigkill) {
  ControllerProcess ctld;
  ASSERT_TRUE(ctld.Start()) << ctld.Log();
  std::mutex mu;
  std::map<std::string, uint32_t> acknowledged;  // Job name -> id the controller gave
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      int n = 0;
      while (!stop) {
        auto client = cli::ControllerClient::Create(ctld.conf());
        if (!client.ok()) continue;
        while (!stop) {
          std::string name = "c" + std::to_string(t) + "-" + std::to_string(n++);
          wire::SubmitJobRequest req;
          req.mutable_spec()->set_name(name);
          req.mutable_spec()->set_hold(true);
          req.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
          wire::SubmitJobResponse resp;
          if (!(*client)->Call(api::kSubmitJob, req, &resp).ok()) break;  // Reconnect.
          std::lock_guard<std::mutex> lock(mu);
          acknowledged[name] = resp.job_id();
        }
      }
    });
  }
  std::mt19937 rng(42);
  for (int kill = 0; kill < 4; ++kill) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 300));
    ctld.Kill(SIGKILL);
    ASSERT_TRUE(ctld.Start()) << ctld.Log();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  for (std::thread& c : clients) c.join();

  CommandResult listing = ctld.Run("squeue -h -t all -o '%i|%j'", false);
  ASSERT_EQ(listing.exit_code, 0);
  std::map<uint32_t, std::string> by_id;
  for (std::string_view line : Split(listing.out, '\n')) {
    if (line.empty()) continue;
    size_t bar = line.find('|');
    uint32_t id = static_cast<uint32_t>(*ParseUint(line.substr(0, bar)));
    EXPECT_EQ(by_id.count(id), 0u) << "duplicate id " << id;
    by_id[id] = std::string(line.substr(bar + 1));
  }
  ASSERT_GT(acknowledged.size(), 20u);
  std::set<uint32_t> ids;
  for (const auto& [name, id] : acknowledged) {
    EXPECT_TRUE(ids.insert(id).second) << "id " << id << " acknowledged twice";
    auto it = by_id.find(id);
    ASSERT_NE(it, by_id.end()) << "acknowledged job " << id << " (" << name << ") was lost";
    // squeue prints at most 8 characters of a name by default; %j here is unbounded.
    EXPECT_EQ(it->second, name);
  }
}

}  // namespace
}  // namespace rota
