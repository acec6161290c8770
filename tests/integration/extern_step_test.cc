// PrologFlags=Contain end to end on the two-node cluster (cgroups v1): a
// two-node batch job has its cgroup, with the extern step's, on both nodes
// from its start, before any srun; the Prolog runs on both; a process put
// into the second node's extern step (as pam_slurm_adopt puts ssh sessions)
// is killed when the job is cancelled, and the cgroups go; the cage outlives a
// rotad that was killed and started again; a Prolog failing on the second
// node requeues the job and drains that node.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;

namespace fs = std::filesystem;

// The hierarchies the nodes use here (cgroup v1; the cages of the tests).
constexpr const char* kControllers[] = {"cpuset", "memory", "devices", "freezer"};

class ExternStepTest : public testing::TwoNodeClusterTest {
 protected:
  static std::string Base() { return "/tmp/rota-extern-" + std::to_string(getpid()); }
  std::string Settings() const override {
    return "PrologFlags=Contain\nProlog=" + Base() + ".prolog\n";
  }
  void SetUp() override {
    // One marker per node and job; fails on a node whose .fail.<node> exists.
    const std::string prolog = Base() + ".prolog";
    std::ofstream(prolog) << "#!/bin/sh\ntouch " << Base()
                          << ".ran.$SLURMD_NODENAME.$SLURM_JOB_ID\n"
                             "[ -e "
                          << Base()
                          << ".fail.$SLURMD_NODENAME ] || exit 0\necho 'no scratch'\nexit 1\n";
    chmod(prolog.c_str(), 0755);
    TwoNodeClusterTest::SetUp();
  }
  void TearDown() override {
    for (pid_t pid : adopted_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    TwoNodeClusterTest::TearDown();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/tmp", ec)) {
      if (e.path().filename().string().rfind(fs::path(Base()).filename().string(), 0) == 0) {
        fs::remove(e.path(), ec);
      }
    }
  }

  std::string Submit(const std::string& options) {
    CommandResult r = cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " " +
                                    options + " --wrap='sleep 300'");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }
  std::string Show(const std::string& job) { return cluster_->Run("scontrol show job " + job).out; }
  // The extern step's cgroup of `job` on node `n`, in `controller`'s hierarchy.
  std::string ExternDir(int n, const std::string& job, const std::string& controller) const {
    return NodedCluster::CgroupDir(controller, cluster_->Node(n),
                                   static_cast<uint32_t>(std::stoul(job))) +
           "/step_extern";
  }
  bool HasCage(int n, const std::string& job) const {
    for (const char* c : kControllers) {
      if (!fs::exists(ExternDir(n, job, c))) return false;
    }
    return true;
  }
  // What the nodes have under the cgroup hierarchies, for failure messages.
  std::string Cgroups() const {
    std::string out;
    std::error_code ec;
    for (const char* c : kControllers) {
      for (int n = 1; n <= NodedCluster::kNodes; ++n) {
        const fs::path top = fs::path("/sys/fs/cgroup") / c / "rota" / cluster_->Node(n);
        for (auto it = fs::recursive_directory_iterator(top, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
          if (it->is_directory()) out += it->path().string() + "\n";
        }
      }
    }
    return out;
  }
  bool HasJobCgroup(int n, const std::string& job) const {
    for (const char* c : kControllers) {
      if (fs::exists(NodedCluster::CgroupDir(c, cluster_->Node(n), std::stoul(job)))) return true;
    }
    return false;
  }
  bool PrologRan(int n, const std::string& job) const {
    return fs::exists(Base() + ".ran." + cluster_->Node(n) + "." + job);
  }
  // A process of the test's own moved into the extern step of `job` on node
  // `n`, in every hierarchy, as pam_slurm_adopt moves an ssh session.
  pid_t Adopt(int n, const std::string& job) {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sleep", "sleep", "1000", static_cast<char*>(nullptr));
      _exit(127);
    }
    adopted_.push_back(pid);
    for (const char* c : kControllers) {
      std::ofstream(ExternDir(n, job, c) + "/cgroup.procs") << pid << "\n";
    }
    return pid;
  }
  // Whether `pid` (a child of the test) has ended; reaps it.
  bool Ended(pid_t pid) {
    int status;
    if (waitpid(pid, &status, WNOHANG) != pid) return false;
    adopted_.erase(std::remove(adopted_.begin(), adopted_.end(), pid), adopted_.end());
    return true;
  }
  bool InCgroup(pid_t pid, int n, const std::string& job) {
    return ReadFileText("/proc/" + std::to_string(pid) + "/cgroup")
               .find("/rota/" + cluster_->Node(n) + "/uid_0/job_" + job + "/step_extern") !=
           std::string::npos;
  }

  std::vector<pid_t> adopted_;
};

TEST_F(ExternStepTest, EveryNodeHasTheJobsCageFromItsStartUntilItsEnd) {
  std::string job = Submit("-N2");
  ASSERT_TRUE(WaitForState(job, "RUNNING")) << Show(job);
  // Before any srun: the job's cgroup with its extern step on both nodes.
  ASSERT_TRUE(WaitUntil([&] { return HasCage(1, job) && HasCage(2, job); }))
      << "node 1: " << HasCage(1, job) << ", node 2: " << HasCage(2, job) << "\n"
      << Cgroups();
  // Limits as a step's job cage gets them: the job's CPUs on the second node.
  const std::string cpus(Trim(ReadFileText(
      NodedCluster::CgroupDir("cpuset", cluster_->Node(2), std::stoul(job)) + "/cpuset.cpus")));
  EXPECT_FALSE(cpus.empty());
  // The first node runs its Prolog after making the cage, before the script.
  EXPECT_TRUE(WaitUntil([&] { return PrologRan(1, job); }));
  EXPECT_TRUE(PrologRan(2, job));  // Before the batch launch went out

  pid_t adopted = Adopt(2, job);
  ASSERT_TRUE(InCgroup(adopted, 2, job))
      << ReadFileText("/proc/" + std::to_string(adopted) + "/cgroup");
  EXPECT_FALSE(Ended(adopted));
  EXPECT_EQ(cluster_->Run("scancel " + job).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Ended(adopted); }, std::chrono::seconds(20)))
      << "the adopted process outlived its job";
  EXPECT_TRUE(WaitUntil([&] { return !HasJobCgroup(1, job) && !HasJobCgroup(2, job); },
                        std::chrono::seconds(20)));
  EXPECT_TRUE(WaitForState(job, "CANCELLED")) << Show(job);
}

TEST_F(ExternStepTest, AJobThatEndsByItselfLeavesNoCageBehind) {
  CommandResult r =
      cluster_->Run("sbatch --parsable -N2 --chdir=" + cluster_->work_dir() + " --wrap='sleep 2'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string job(Trim(r.out));
  ASSERT_TRUE(WaitUntil([&] { return HasCage(2, job); })) << Show(job);
  pid_t adopted = Adopt(2, job);
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Show(job);
  // SIGTERM once the script ended, SIGKILL after KillWait (2 s) if need be.
  EXPECT_TRUE(WaitUntil([&] { return Ended(adopted); }, std::chrono::seconds(20)));
  EXPECT_TRUE(WaitUntil([&] { return !HasJobCgroup(2, job); }, std::chrono::seconds(20)));
}

TEST_F(ExternStepTest, TheCageOutlivesARotadThatWasKilled) {
  std::string job = Submit("-N2");
  ASSERT_TRUE(WaitUntil([&] { return HasCage(2, job); })) << Show(job);
  pid_t adopted = Adopt(2, job);
  cluster_->StopNode(2, SIGKILL);
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  // Registered again; the sweep at its start has run by then.
  ASSERT_TRUE(WaitUntil([&] {
    return cluster_->NodeLogs().find("its cage (prepared before rotad restarted) is kept") !=
           std::string::npos;
  }));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // A few heartbeats
  EXPECT_TRUE(HasCage(2, job));
  EXPECT_FALSE(Ended(adopted));
  EXPECT_TRUE(InCgroup(adopted, 2, job));
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + job).out), "RUNNING");
  EXPECT_EQ(cluster_->Run("scancel " + job).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Ended(adopted); }, std::chrono::seconds(20)));
  EXPECT_TRUE(WaitUntil([&] { return !HasJobCgroup(2, job); }, std::chrono::seconds(20)));
}

TEST_F(ExternStepTest, APrologFailingOnTheSecondNodeRequeuesTheJobAndDrainsIt) {
  std::ofstream(Base() + ".fail." + cluster_->Node(2)) << "x";
  std::string job = Submit("-N2");
  ASSERT_TRUE(WaitUntil([&] {
    return cluster_->Run("sinfo -h -N -o '%N %t'").out.find(cluster_->Node(2) + " drain") !=
           std::string::npos;
  })) << cluster_->Run("sinfo -R").out;
  EXPECT_NE(cluster_->Run("sinfo -R -h -o %E").out.find("Prolog error: no scratch"),
            std::string::npos)
      << cluster_->Run("sinfo -R").out;
  // Pending again (two nodes are needed, one is drained), after one restart.
  EXPECT_TRUE(WaitUntil([&] { return Show(job).find("JobState=PENDING") != std::string::npos; }))
      << Show(job);
  EXPECT_NE(Show(job).find("Restarts=1"), std::string::npos) << Show(job);
  EXPECT_NE(Show(job).find("Reason=launch_failed_requeued_held"), std::string::npos) << Show(job);
  EXPECT_TRUE(WaitUntil([&] { return !HasJobCgroup(1, job) && !HasJobCgroup(2, job); },
                        std::chrono::seconds(20)));
  EXPECT_EQ(cluster_->Run("scancel " + job).exit_code, 0);
}

// What preparing the other node costs a job: `sbatch --wait -N2 --wrap=true`
// end to end (submission to the end as sbatch hears it), median of 7, with
// and without PrologFlags=Contain (no Prolog either way).
class TwoNodeJobTimeTest : public testing::TwoNodeClusterTest {
 protected:
  int64_t MedianMs() {
    std::vector<int64_t> ms;
    for (int i = 0; i < 7; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      CommandResult r =
          cluster_->Run("sbatch --wait -N2 --chdir=" + cluster_->work_dir() + " --wrap=true");
      EXPECT_EQ(r.exit_code, 0) << r.out;
      ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - t0)
                       .count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[3];
  }
};

TEST_F(TwoNodeJobTimeTest, TwoNodeJobTime) {
  const int64_t median = MedianMs();
  std::cerr << "sbatch --wait -N2 --wrap=true: median " << median << " ms\n";
  EXPECT_LT(median, 20000);
}

class ContainedTwoNodeJobTimeTest : public TwoNodeJobTimeTest {
 protected:
  std::string Settings() const override { return "PrologFlags=Contain\n"; }
};

TEST_F(ContainedTwoNodeJobTimeTest, TwoNodeJobTime) {
  const int64_t median = MedianMs();
  std::cerr << "sbatch --wait -N2 --wrap=true, PrologFlags=Contain: median " << median << " ms\n";
  EXPECT_LT(median, 20000);
}

}  // namespace
}  // namespace rota
