// End to end: a real rotactld, two real rotad on one host (real cgroups v1,
// fake GPUs), jobs submitted with the built sbatch and followed with squeue
// and scontrol, as a user would.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::DaemonProcess;
using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;

class NodedClusterTest : public testing::TwoNodeClusterTest {
 protected:
  // Submits `options` with sbatch --parsable; returns the job id ("" on failure).
  std::string Submit(const std::string& options, const std::string& as_user = "") {
    std::string line = "sbatch --parsable --chdir=" + cluster_->work_dir() + " " + options;
    if (!as_user.empty()) {
      line = "su -s /bin/sh " + as_user + " -c \"SLURM_CONF=" + cluster_->conf() + " " +
             testing::BinDir() + "/" + line + "\"";
    }
    CommandResult r = cluster_->Run(line);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }
  // sinfo's compact state of node `n` ("idle", "drain", "down*", ...).
  std::string NodeState(int n) {
    return std::string(Trim(cluster_->Run("sinfo -h -o %t -n " + cluster_->Node(n)).out));
  }
  bool WaitForNodeState(int n, const std::string& state) {
    return WaitUntil([&] { return NodeState(n) == state; }, std::chrono::seconds(20));
  }
};

TEST_F(NodedClusterTest, BatchJobCompletesWithSlurmEnvironmentAndItsGpusOnly) {
  const std::string script = "env; for g in " + cluster_->Gpu(1, 0) + " " + cluster_->Gpu(1, 1) +
                             " " + cluster_->Gpu(2, 0) +
                             "; do (exec 3<$g) 2>&1 | sed s/^/OPEN:/; done";
  std::string id = Submit("-J e2e --gres=gpu:2 --wrap='" + script + "'");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  std::string out = Output(id);
  // First fit puts a one-node job on the first node.
  const std::string node = cluster_->Node(1);
  for (const std::string& line : std::vector<std::string>{
           "SLURM_JOB_ID=" + id, "SLURM_JOBID=" + id, std::string("SLURM_JOB_NAME=e2e"),
           std::string("SLURM_JOB_USER=root"), std::string("SLURM_JOB_UID=0"),
           std::string("SLURM_JOB_PARTITION=batch"), "SLURM_JOB_NODELIST=" + node,
           "SLURM_NODELIST=" + node, std::string("SLURM_JOB_NUM_NODES=1"),
           std::string("SLURM_CLUSTER_NAME=ndtest"), "SLURM_SUBMIT_DIR=" + cluster_->work_dir(),
           std::string("SLURM_GPUS_ON_NODE=2"), std::string("SLURM_JOB_GPUS=0,1"),
           std::string("CUDA_VISIBLE_DEVICES=0,1")}) {
    EXPECT_NE(out.find(line + "\n"), std::string::npos) << line << " in:\n" << out;
  }
  EXPECT_NE(out.find(cluster_->Gpu(1, 0) + ": No such device or address"), std::string::npos)
      << out;
  EXPECT_NE(out.find(cluster_->Gpu(1, 1) + ": No such device or address"), std::string::npos)
      << out;
  EXPECT_NE(out.find(cluster_->Gpu(2, 0) + ": Operation not permitted"), std::string::npos) << out;
}

// The controller picks the exact GPUs and CPUs; the node daemon gives the job
// those and no others, and scontrol -d shows them.
TEST_F(NodedClusterTest, ControllerChosenGpusAndCpusReachTheJob) {
  const std::string node = cluster_->Node(1);
  std::string first = Submit("-w " + node + " --gres=gpu:1 -c 1 --mem=100 --wrap='sleep 30'");
  ASSERT_TRUE(WaitForState(first, "RUNNING"));
  std::string second =
      Submit("-w " + node + " --gres=gpu:1 -c 1 --mem=100 --wrap='env; cat /proc/self/status'");
  ASSERT_TRUE(WaitForState(second, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  std::string out = Output(second);
  EXPECT_NE(out.find("SLURM_JOB_GPUS=1\n"), std::string::npos) << out;
  // ConstrainCores: the cpuset holds the chosen CPU (the host has CPUs 0 and 1).
  EXPECT_NE(out.find("Cpus_allowed_list:\t1\n"), std::string::npos) << out;
  std::string details = cluster_->Run("scontrol -d show job " + second).out;
  EXPECT_NE(details.find("  Nodes=" + node + " CPU_IDs=1 Mem=100 GRES=gpu:a100:1(IDX:1)"),
            std::string::npos)
      << details;
  EXPECT_NE(details.find("JOB_GRES=gpu:a100:1"), std::string::npos) << details;
  // The first job holds CPU 0 and GPU 0.
  EXPECT_NE(cluster_->Run("scontrol -d show job " + first)
                .out.find("CPU_IDs=0 Mem=100 GRES=gpu:a100:1(IDX:0)"),
            std::string::npos);
  cluster_->Run("scancel " + first);
  ASSERT_TRUE(WaitForState(first, "CANCELLED"));
}

TEST_F(NodedClusterTest, ExitCodeReachesTheController) {
  std::string id = Submit("--wrap='exit 3'");
  ASSERT_TRUE(WaitForState(id, "FAILED"));
  EXPECT_NE(cluster_->Run("scontrol show job " + id).out.find("ExitCode=3:0"), std::string::npos);
}

TEST_F(NodedClusterTest, JobRunsAsTheSubmitterAndOwnsItsOutput) {
  const std::string user = "rotane" + std::to_string(getpid());
  ASSERT_EQ(std::system(("useradd -M -N -s /bin/sh " + user).c_str()), 0);
  struct Cleanup {
    std::string user;
    ~Cleanup() { std::system(("userdel " + user + " 2>/dev/null").c_str()); }
  } cleanup{user};
  passwd* pw = getpwnam(user.c_str());
  ASSERT_NE(pw, nullptr);
  const uid_t uid = pw->pw_uid;
  // auth/slurm signs with the shared key: the test user needs to read it to
  // submit (the daemons, as root, still can).
  ASSERT_EQ(chown((cluster_->dir().path() / "slurm.key").c_str(), uid, 0), 0);
  std::string id = Submit("--wrap='id -u'", user);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED"));
  const std::string out_path = cluster_->work_dir() + "/slurm-" + id + ".out";
  EXPECT_EQ(ReadFileText(out_path), std::to_string(uid) + "\n");
  struct stat st {};
  ASSERT_EQ(stat(out_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);
  EXPECT_NE(cluster_->Run("squeue -h -t all -o %u -j " + id).out.find(user), std::string::npos);
}

TEST_F(NodedClusterTest, NothingOutlivesTheJob) {
  const std::string pid_file = cluster_->work_dir() + "/daemonised.pid";
  std::string id =
      Submit("--wrap='setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > " + pid_file + "'");
  ASSERT_TRUE(WaitForState(id, "COMPLETED"));
  std::optional<int64_t> pid = ParseInt(Trim(ReadFileText(pid_file)));
  ASSERT_TRUE(pid.has_value());
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(static_cast<pid_t>(*pid)); },
                        std::chrono::seconds(5)));
  uint32_t job = static_cast<uint32_t>(*ParseUint(id));
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("freezer", cluster_->Node(1), job)));
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("devices", cluster_->Node(1), job)));
}

// The nearest ancestor of `pid` whose command is rota-stepd (0 when none).
pid_t StepDaemonAbove(pid_t pid) {
  for (int depth = 0; depth < 8 && pid > 1; ++depth) {
    std::string stat = ReadFileText("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos) return 0;
    std::vector<std::string_view> fields = Split(std::string_view(stat).substr(paren + 2), ' ');
    if (fields.size() < 2) return 0;
    pid = static_cast<pid_t>(ParseInt(fields[1]).value_or(0));
    if (ReadFileText("/proc/" + std::to_string(pid) + "/cmdline").find("rota-stepd") !=
        std::string::npos) {
      return pid;
    }
  }
  return 0;
}

// A job whose rota-stepd is killed with SIGKILL: rotad kills what is left in
// the job's cage before it reports the end, so no process of the job runs with
// its GPUs once the controller gives them to the next job.
TEST_F(NodedClusterTest, KilledStepDaemonLeavesNothingRunningWhenTheJobEnds) {
  const std::string work = cluster_->work_dir();
  const std::string node = cluster_->Node(1);
  std::string id = Submit("-w " + node + " --gres=gpu:2 --wrap='sleep 1000 & echo $! > " + work +
                          "/child.pid; echo $$ > " + work + "/script.pid; wait'");
  ASSERT_TRUE(WaitForState(id, "RUNNING")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/script.pid")).empty(); }));
  auto pid_in = [&](const std::string& file) {
    return static_cast<pid_t>(ParseInt(Trim(ReadFileText(work + "/" + file))).value_or(0));
  };
  const pid_t script = pid_in("script.pid");
  const pid_t child = pid_in("child.pid");
  ASSERT_GT(script, 0);
  ASSERT_GT(child, 0);
  const pid_t stepd = StepDaemonAbove(script);
  ASSERT_GT(stepd, 0) << "no rota-stepd above pid " << script;
  ASSERT_EQ(kill(stepd, SIGKILL), 0);

  ASSERT_TRUE(WaitUntil(
      [&] {
        std::string state = std::string(Trim(cluster_->Run("squeue -h -t all -o %T -j " + id).out));
        return state != "RUNNING" && state != "COMPLETING";
      },
      std::chrono::seconds(60)))
      << cluster_->Run("squeue -t all").out;
  // Ended as far as the controller knows: nothing of the job may still run
  // (a killed process may take a moment to be reaped by init).
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(script); }, std::chrono::seconds(2)));
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(child); }, std::chrono::seconds(2)));
  EXPECT_FALSE(std::filesystem::exists(
      NodedCluster::CgroupDir("freezer", node, static_cast<uint32_t>(*ParseUint(id)))));
  // Its GPUs go to the next job, which runs.
  std::string next = Submit("-w " + node + " --gres=gpu:2 --wrap=true");
  EXPECT_TRUE(WaitForState(next, "COMPLETED")) << cluster_->Run("squeue -t all").out;
}

TEST_F(NodedClusterTest, CancelKillsARunningJob) {
  const std::string pid_file = cluster_->work_dir() + "/running.pid";
  std::string id = Submit("--wrap='echo $$ > " + pid_file + "; sleep 1000'");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_TRUE(WaitUntil([&] { return !ReadFileText(pid_file).empty(); }));
  pid_t pid = static_cast<pid_t>(*ParseInt(Trim(ReadFileText(pid_file))));
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(WaitForState(id, "CANCELLED"));
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(pid); }, std::chrono::seconds(5)));
}

// scancel of a job that traps SIGTERM: Slurm's "CG" (and the node's "comp")
// while rotad waits KillWait (2 s) to SIGKILL it, its GPUs still taken; then
// CANCELLED, and the next job gets the GPUs.
TEST_F(NodedClusterTest, CancelledJobIsCompletingWhileItDies) {
  const std::string node = cluster_->Node(1);
  std::string id = Submit("-w " + node +
                          " --gres=gpu:2 --wrap='trap \"echo GOT_TERM; sleep 30\" TERM; "
                          "echo READY; while true; do sleep 0.1; done'");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_TRUE(WaitUntil([&] { return Output(id).find("READY") != std::string::npos; }));
  std::string next = Submit("-w " + node + " --gres=gpu:2 --wrap=true");
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %t -j " + id).out), "CG");
  EXPECT_NE(cluster_->Run("scontrol show job " + id).out.find("JobState=COMPLETING"),
            std::string::npos);
  // The default listing shows ending jobs.
  EXPECT_NE(cluster_->Run("squeue -h -o '%i %T'").out.find(id + " COMPLETING\n"),
            std::string::npos);
  EXPECT_EQ(NodeState(1), "comp");
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + next).out), "PENDING");
  ASSERT_TRUE(WaitForState(id, "CANCELLED")) << cluster_->Run("squeue -t all").out;
  EXPECT_NE(Output(id).find("GOT_TERM\n"), std::string::npos) << Output(id);
  EXPECT_NE(cluster_->NodeLogs().find("after SIGTERM (KillWait); sending SIGKILL"),
            std::string::npos);
  ASSERT_TRUE(WaitForState(next, "COMPLETED")) << cluster_->Run("squeue -t all").out;
}

// scontrol requeue of a running job: the next run starts only once the old
// one is gone from the node, even on the same node and GPUs.
TEST_F(NodedClusterTest, RequeuedJobRunsAgainOnlyAfterItsOldRunIsGone) {
  const std::string work = cluster_->work_dir();
  std::string id = Submit("-w " + cluster_->Node(1) +
                          " --gres=gpu:2 --wrap='trap \"sleep 1; exit 1\" TERM; "
                          "echo $$ > " +
                          work +
                          "/run$SLURM_RESTART_COUNT.pid; "
                          "while true; do sleep 0.1; done'");
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/run0.pid")).empty(); }));
  const pid_t first =
      static_cast<pid_t>(ParseUint(Trim(ReadFileText(work + "/run0.pid"))).value_or(0));
  ASSERT_GT(first, 0);
  ASSERT_EQ(cluster_->Run("scontrol requeue " + id).exit_code, 0);
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %t -j " + id).out), "CG");
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/run1.pid")).empty(); }))
      << cluster_->Run("squeue -t all").out << cluster_->NodeLogs();
  EXPECT_FALSE(testing::ProcessAlive(first));
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + id).out), "RUNNING");
  EXPECT_NE(cluster_->Run("scontrol show job " + id).out.find("Restarts=1"), std::string::npos);
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_TRUE(WaitForState(id, "CANCELLED")) << cluster_->Run("squeue -t all").out;
}

// The time limit end to end: the controller's SIGTERM at the limit, rotad's
// SIGKILL KillWait (2 s) later for a job that ignores it, TIMEOUT at the end.
TEST_F(NodedClusterTest, TimeLimitEndsAJobThatIgnoresSigterm) {
  std::string id =
      Submit("--wrap='trap \"echo GOT_TERM\" TERM; echo READY; while true; do sleep 0.1; done'");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_TRUE(WaitUntil([&] { return Output(id).find("READY") != std::string::npos; }));
  // Lowering one's own limit is allowed; 0 (whole minutes, as in Slurm) is
  // long past.
  CommandResult r = cluster_->Run("scontrol update JobId=" + id + " TimeLimit=0");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(WaitForState(id, "TIMEOUT")) << cluster_->Run("squeue -t all").out;
  EXPECT_NE(Output(id).find("GOT_TERM\n"), std::string::npos) << Output(id);
  EXPECT_NE(cluster_->NodeLogs().find("after SIGTERM (KillWait); sending SIGKILL"),
            std::string::npos);
}

// gres.conf promises two GPUs on node 2 but one device file is missing: the
// node reports one, and the controller drains it in Slurm's words until an
// admin resumes it with the hardware back.
TEST_F(NodedClusterTest, NodeShortOfItsGpusIsDrainedUntilRepaired) {
  const std::string reason = "gres/gpu count reported lower than configured (1 < 2)";
  const std::string node = cluster_->Node(2);
  cluster_->StopNode(2);
  ASSERT_EQ(unlink(cluster_->Gpu(2, 1).c_str()), 0);
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  ASSERT_TRUE(WaitForNodeState(2, "drain")) << cluster_->Run("sinfo -N").out;
  EXPECT_NE(cluster_->Run("scontrol show node " + node).out.find("Reason=" + reason),
            std::string::npos);
  EXPECT_EQ(NodeState(1), "idle");

  // Resuming a node that still falls short drains it again.
  CommandResult r = cluster_->Run("scontrol update NodeName=" + node + " State=RESUME");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(NodeState(2), "drain");
  EXPECT_NE(cluster_->Run("scontrol show node " + node).out.find("Reason=" + reason),
            std::string::npos);

  // The device back, the node registers whole; the admin's resume sticks now.
  ASSERT_EQ(
      mknod(cluster_->Gpu(2, 1).c_str(), S_IFCHR | 0666, makedev(195, NodedCluster::Minor(2, 1))),
      0);
  cluster_->StopNode(2);
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  // Resumes are refused (drained again) until the new registration arrived.
  EXPECT_TRUE(WaitUntil([&] {
    cluster_->Run("scontrol update NodeName=" + node + " State=RESUME");
    return NodeState(2) == "idle";
  })) << cluster_->Run("scontrol show node " + node).out;
}

// rota-stepd keeps jobs running while their rotad is down (killed, as in a
// crash): the restarted rotad takes back the job that still runs and reports
// its end when it comes, and reports the one that ended meanwhile.
TEST_F(NodedClusterTest, JobsOutliveARotadCrashAndTheirEndsAreReported) {
  const std::string work = cluster_->work_dir();
  const std::string node = cluster_->Node(1);
  const std::string go = work + "/go";
  std::string waiting = Submit("-w " + node + " --wrap='echo $$ > " + work +
                               "/waiting.pid; while [ ! -e " + go + " ]; do sleep 0.2; done'");
  std::string quick = Submit("-w " + node + " --wrap='sleep 3; exit 3'");
  ASSERT_TRUE(WaitForState(waiting, "RUNNING")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitForState(quick, "RUNNING")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/waiting.pid")).empty(); }));
  pid_t script =
      static_cast<pid_t>(ParseUint(Trim(ReadFileText(work + "/waiting.pid"))).value_or(0));
  ASSERT_GT(script, 0);

  cluster_->StopNode(1, SIGKILL);
  // The quick job ends while no rotad listens; the other keeps running.
  std::this_thread::sleep_for(std::chrono::seconds(5));
  EXPECT_TRUE(testing::ProcessAlive(script));
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -t all -o %T -j " + waiting).out), "RUNNING");

  ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  ASSERT_TRUE(WaitForState(quick, "FAILED")) << cluster_->Run("squeue -t all").out;
  EXPECT_NE(cluster_->Run("scontrol show job " + quick).out.find("ExitCode=3:0"),
            std::string::npos);
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -t all -o %T -j " + waiting).out), "RUNNING");
  EXPECT_TRUE(testing::ProcessAlive(script));

  std::ofstream(go) << "x";
  ASSERT_TRUE(WaitForState(waiting, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  EXPECT_NE(cluster_->Run("scontrol show job " + waiting).out.find("ExitCode=0:0"),
            std::string::npos);
  EXPECT_NE(cluster_->NodeLogs().find("re-attached to its rota-stepd"), std::string::npos);
  EXPECT_TRUE(WaitForNodeState(1, "idle")) << cluster_->Run("sinfo -N").out;
}

// A controller that starts asks its nodes to register at once: a job
// submitted right after a restart starts within seconds, not at the nodes'
// next heartbeat (every 30 s here).
TEST_F(NodedClusterTest, RestartedControllerStartsJobsBeforeTheNextHeartbeat) {
  kill(ctld_->pid(), SIGKILL);
  ctld_->Stop();
  ctld_ = std::make_unique<testing::DaemonProcess>(
      std::vector<std::string>{testing::BinDir() + "/rotactld", "-f", cluster_->conf()},
      (cluster_->dir().path() / "rotactld.log").string());
  ASSERT_TRUE(WaitUntil([&] { return cluster_->Run("sinfo -h -o %t").exit_code == 0; }));
  const auto up = std::chrono::steady_clock::now();
  std::string job = Submit("--wrap=true");
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string out = cluster_->Run("squeue -h -t all -o %T -j " + job).out;
        const std::string_view state = Trim(out);
        return state == "RUNNING" || state == "COMPLETING" || state == "COMPLETED";
      },
      std::chrono::seconds(40)));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - up).count();
  EXPECT_LT(waited, 5.0) << "the job started " << waited << " s after the controller came up";
}

// cgroup.conf's MaxTasksPerJob caps what a job may fork (the pids controller):
// a fork bomb stops at the cap instead of taking the host's process table.
class NodedTaskLimitTest : public NodedClusterTest {
 protected:
  std::string CgroupConf() const override {
    return "ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n"
           "MaxTasksPerJob=24\n";
  }
};

TEST_F(NodedTaskLimitTest, TheJobsCageHasItsTaskLimit) {
  // The job reads the limit of the pids cgroup it runs in.
  std::string id = Submit(
      "--wrap='p=$(grep :pids: /proc/self/cgroup | cut -d: -f3); "
      "echo max=$(cat /sys/fs/cgroup/pids$p/pids.max) in $p'");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  const std::string out = Output(id);
  EXPECT_NE(out.find("max=24 in /rota/" + cluster_->Node(1) + "/uid_0/job_" + id),
            std::string::npos)
      << out;
}

// Nodes that heartbeat every second against SlurmdTimeout=3, and come back
// by themselves after being lost (ReturnToService=1).
class NodedLivenessTest : public NodedClusterTest {
 protected:
  std::string Settings() const override { return "SlurmdTimeout=3\nReturnToService=1\n"; }
};

// -k/--no-kill: a lost node that does not run the batch script leaves the
// job running on the other one; its resources are the job's no more.
TEST_F(NodedLivenessTest, NoKillJobGoesOnWithoutALostNode) {
  const std::string work = cluster_->work_dir();
  std::string id = Submit("-N 2 -k --wrap='echo started > " + work + "/nokill; exec sleep 1000'");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_EQ(Trim(cluster_->Run("squeue -h -o %D -j " + id).out), "2");
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/nokill")).empty(); }));
  cluster_->StopNode(2, SIGKILL);
  ASSERT_TRUE(WaitForNodeState(2, "down*")) << cluster_->Run("sinfo -N").out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o '%T %D %N' -j " + id).out),
            "RUNNING 1 " + cluster_->Node(1))
      << cluster_->Run("scontrol show job " + id).out;
  EXPECT_NE(cluster_->Run("scontrol show job " + id).out.find("Restarts=0"), std::string::npos);
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  EXPECT_TRUE(WaitForState(id, "CANCELLED")) << cluster_->Run("squeue -t all").out;
}

TEST_F(NodedLivenessTest, LostNodeGoesDownAndItsJobIsRequeuedElsewhere) {
  const std::string work = cluster_->work_dir();
  std::string id =
      Submit("--wrap='echo $$ > " + work + "/run$SLURM_RESTART_COUNT.pid; exec sleep 1000'");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  ASSERT_EQ(Trim(cluster_->Run("squeue -h -o %N -j " + id).out), cluster_->Node(1));
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/run0.pid")).empty(); }));
  const pid_t first_run =
      static_cast<pid_t>(ParseUint(Trim(ReadFileText(work + "/run0.pid"))).value_or(0));
  ASSERT_GT(first_run, 0);
  // As if the node fell off the network: nothing is said, and the job's
  // rota-stepd keeps the first run going there.
  cluster_->StopNode(1, SIGKILL);
  ASSERT_TRUE(WaitForNodeState(1, "down*")) << cluster_->Run("sinfo -N").out;
  EXPECT_NE(
      cluster_->Run("scontrol show node " + cluster_->Node(1)).out.find("Reason=Not responding"),
      std::string::npos);
  // sinfo -d lists the node that does not answer; -r the others.
  EXPECT_EQ(cluster_->Run("sinfo -h -N -d -o %N").out, cluster_->Node(1) + "\n");
  EXPECT_EQ(cluster_->Run("sinfo -h -N -r -o %N").out.find(cluster_->Node(1)), std::string::npos);
  // Requeued (sbatch's default), it runs again on the node that answers.
  ASSERT_TRUE(WaitUntil(
      [&] { return Trim(cluster_->Run("squeue -h -o %N -j " + id).out) == cluster_->Node(2); },
      std::chrono::seconds(20)))
      << cluster_->Run("squeue -t all").out;
  EXPECT_NE(cluster_->Run("scontrol show job " + id).out.find("Restarts=1"), std::string::npos);
  EXPECT_EQ(NodeState(2), "mix");
  EXPECT_TRUE(testing::ProcessAlive(first_run));
  // The daemon back, the node takes jobs again by itself, and the first run
  // it still held is killed: the job runs once, on node 2.
  ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  EXPECT_TRUE(WaitForNodeState(1, "idle")) << cluster_->Run("sinfo -N").out;
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(first_run); })) << cluster_->NodeLogs();
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T:%N -j " + id).out), "RUNNING:" + cluster_->Node(2));
}

// HealthCheckProgram: a failing check drains its node with what it printed.
class NodedHealthCheckTest : public NodedClusterTest {
 protected:
  std::string Settings() const override {
    return "HealthCheckProgram=" + CheckPath() + "\nHealthCheckInterval=1\n";
  }
  static std::string CheckPath() { return "/tmp/rota-hc-" + std::to_string(getpid()) + ".sh"; }
  static std::string FlagPath() { return "/tmp/rota-hc-" + std::to_string(getpid()) + ".fail"; }
  void SetUp() override {
    // Healthy until the test says otherwise: the flag file makes it fail.
    std::ofstream(CheckPath()) << "#!/bin/sh\n[ -e " << FlagPath()
                               << " ] || exit 0\necho 'scratch disk full'\nexit 1\n";
    chmod(CheckPath().c_str(), 0755);
    NodedClusterTest::SetUp();
  }
  void TearDown() override {
    NodedClusterTest::TearDown();
    std::remove(CheckPath().c_str());
    std::remove(FlagPath().c_str());
  }
};

TEST_F(NodedHealthCheckTest, FailingCheckDrainsTheNodeWithItsOutput) {
  EXPECT_EQ(NodeState(1), "idle");
  std::ofstream(FlagPath()) << "x";
  ASSERT_TRUE(WaitForNodeState(1, "drain")) << cluster_->Run("sinfo -R").out;
  EXPECT_NE(cluster_->Run("sinfo -R -h -o %E").out.find("scratch disk full"), std::string::npos)
      << cluster_->Run("sinfo -R").out;
  // Put right and resumed by an admin, it takes jobs again.
  std::remove(FlagPath().c_str());
  EXPECT_EQ(
      cluster_->Run("scontrol update NodeName=" + cluster_->Node(1) + " State=RESUME").exit_code,
      0);
  EXPECT_TRUE(WaitForNodeState(1, "idle"));
}

// HealthCheckNodeState=ALLOC: the check runs only while jobs hold every CPU.
class NodedHealthCheckAllocTest : public NodedHealthCheckTest {
 protected:
  std::string Settings() const override {
    return NodedHealthCheckTest::Settings() + "HealthCheckNodeState=ALLOC\n";
  }
};

TEST_F(NodedHealthCheckAllocTest, FailingCheckWaitsUntilTheNodeIsAllocated) {
  std::ofstream(FlagPath()) << "x";
  // Idle: three intervals pass without a check.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeState(1), "idle") << cluster_->Run("sinfo -R").out;
  // A job holding all its CPUs: the next check runs, fails and drains it.
  std::string id = Submit("--exclusive -w " + cluster_->Node(1) + " --wrap='sleep 60'");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  EXPECT_TRUE(WaitUntil([&] { return NodeState(1).rfind("dr", 0) == 0; }, std::chrono::seconds(20)))
      << cluster_->Run("sinfo -N").out;
  EXPECT_NE(cluster_->Run("sinfo -R -h -o %E").out.find("scratch disk full"), std::string::npos);
  EXPECT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
}

// Prolog and Epilog: run as root around each job with its SLURM_* variables; a
// failing Prolog requeues the job and drains the node, a failing Epilog drains it.
class NodedPrologTest : public NodedClusterTest {
 protected:
  static std::string Base() { return "/tmp/rota-pe-" + std::to_string(getpid()); }
  std::string Settings() const override {
    return "Prolog=" + Base() + ".prolog\nEpilog=" + Base() + ".epilog\n";
  }
  void SetUp() override {
    WriteScript(Base() + ".prolog", "prolog");
    WriteScript(Base() + ".epilog", "epilog");
    NodedClusterTest::SetUp();
  }
  void TearDown() override {
    NodedClusterTest::TearDown();
    for (const char* s : {".prolog", ".epilog", ".prolog.fail", ".epilog.fail", ".seen"}) {
      std::remove((Base() + s).c_str());
    }
  }
  // Appends what it saw to .seen; fails (with a message) when its .fail flag exists.
  static void WriteScript(const std::string& path, const std::string& what) {
    std::ofstream(path) << "#!/bin/sh\necho \"" << what << " $SLURM_JOB_ID $SLURM_JOB_USER\" >> "
                        << Base() << ".seen\n[ -e " << path << ".fail ] || exit 0\necho '" << what
                        << " says no'\nexit 1\n";
    chmod(path.c_str(), 0755);
  }
};

TEST_F(NodedPrologTest, ScriptsRunAroundTheJobWithItsVariables) {
  std::string job = Submit("--wrap=true");
  ASSERT_TRUE(WaitForState(job, "COMPLETED"));
  std::string seen = ReadFileText(Base() + ".seen");
  EXPECT_NE(seen.find("prolog " + job + " root\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("epilog " + job + " root\n"), std::string::npos) << seen;
  EXPECT_LT(seen.find("prolog " + job), seen.find("epilog " + job)) << seen;
}

TEST_F(NodedPrologTest, FailingPrologRequeuesAndDrainsFailingEpilogDrains) {
  std::ofstream(Base() + ".prolog.fail") << "x";
  std::string job = Submit("-w " + cluster_->Node(1) + " --wrap=true");
  ASSERT_TRUE(WaitForNodeState(1, "drain")) << cluster_->Run("sinfo -R").out;
  EXPECT_NE(cluster_->Run("sinfo -R -h -o %E").out.find("Prolog error: prolog says no"),
            std::string::npos)
      << cluster_->Run("sinfo -R").out;
  CommandResult show = cluster_->Run("scontrol show job " + job);
  EXPECT_NE(show.out.find("JobState=PENDING"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  // Held, as Slurm holds it, with the words scripts look for.
  EXPECT_NE(show.out.find("Priority=0 "), std::string::npos) << show.out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %r -j " + job).out), "launch failed requeued held");
  // The Prolog mended, the node resumed and the job released, it runs; then a
  // failing Epilog drains.
  std::remove((Base() + ".prolog.fail").c_str());
  std::ofstream(Base() + ".epilog.fail") << "x";
  EXPECT_EQ(
      cluster_->Run("scontrol update NodeName=" + cluster_->Node(1) + " State=RESUME").exit_code,
      0);
  EXPECT_EQ(cluster_->Run("scontrol release " + job).exit_code, 0);
  ASSERT_TRUE(WaitForState(job, "COMPLETED"));
  ASSERT_TRUE(WaitForNodeState(1, "drain"));
  EXPECT_NE(cluster_->Run("sinfo -R -h -o %E").out.find("Epilog error: epilog says no"),
            std::string::npos)
      << cluster_->Run("sinfo -R").out;
}

// PreemptType=preempt/partition_prio: a job of a higher PriorityTier takes the
// node of a running job of the default partition, which is requeued
// (PreemptMode=REQUEUE): its process really dies, and it runs again later.
class NodedPreemptionTest : public NodedClusterTest {
 protected:
  std::string Settings() const override {
    return "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"
           "PartitionName=high Nodes=ALL PriorityTier=2 MaxTime=1-00:00:00 "
           "DefaultTime=01:00:00\n";
  }
};

TEST_F(NodedPreemptionTest, HigherTierJobRequeuesALowerTierJob) {
  const std::string work = cluster_->work_dir();
  const std::string node = cluster_->Node(1);
  std::string low = Submit("-w " + node + " -c 2 --wrap='echo $$ > " + work +
                           "/low$SLURM_RESTART_COUNT.pid; exec sleep 1000'");
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/low0.pid")).empty(); }))
      << cluster_->Run("squeue -t all").out << cluster_->NodeLogs();
  const pid_t first =
      static_cast<pid_t>(ParseUint(Trim(ReadFileText(work + "/low0.pid"))).value_or(0));
  ASSERT_GT(first, 0);

  std::string high = Submit("-p high -w " + node + " -c 2 --wrap='sleep 3'");
  ASSERT_TRUE(WaitForState(high, "RUNNING")) << cluster_->Run("squeue -t all").out;
  // The high job runs only once the old run is gone from the node.
  EXPECT_FALSE(testing::ProcessAlive(first));
  CommandResult show = cluster_->Run("scontrol show job " + low);
  EXPECT_NE(show.out.find("JobState=PENDING"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("PreemptTime="), std::string::npos) << show.out;

  // The preemptor done, the requeued job runs again where it asked to.
  ASSERT_TRUE(WaitForState(high, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/low1.pid")).empty(); },
                        std::chrono::seconds(30)))
      << cluster_->Run("squeue -t all").out << cluster_->NodeLogs();
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + low).out), "RUNNING");
  ASSERT_EQ(cluster_->Run("scancel " + low).exit_code, 0);
  ASSERT_TRUE(WaitForState(low, "CANCELLED")) << cluster_->Run("squeue -t all").out;
}

// PreemptMode=SUSPEND: the lower-tier job's processes are stopped while the
// preemptor runs on its node, and continue once it is done.
class NodedSuspendPreemptionTest : public NodedClusterTest {
 protected:
  std::string Settings() const override {
    return "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND\n"
           "PartitionName=high Nodes=ALL PriorityTier=2 MaxTime=1-00:00:00 "
           "DefaultTime=01:00:00\n";
  }
  // The process's state letter in /proc (R, S, T for stopped, ...).
  static char ProcessState(pid_t pid) {
    std::string stat = ReadFileText("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
  }
};

TEST_F(NodedSuspendPreemptionTest, LowerTierJobIsStoppedThenContinued) {
  const std::string work = cluster_->work_dir();
  const std::string node = cluster_->Node(1);
  std::string low =
      Submit("-w " + node + " -c 2 --wrap='echo $$ > " + work + "/low.pid; exec sleep 1000'");
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(work + "/low.pid")).empty(); }))
      << cluster_->Run("squeue -t all").out << cluster_->NodeLogs();
  const pid_t pid =
      static_cast<pid_t>(ParseUint(Trim(ReadFileText(work + "/low.pid"))).value_or(0));
  ASSERT_GT(pid, 0);

  std::string high = Submit("-p high -w " + node + " -c 2 --wrap='sleep 4'");
  ASSERT_TRUE(WaitForState(low, "SUSPENDED")) << cluster_->Run("squeue -t all").out;
  EXPECT_TRUE(WaitUntil([&] { return ProcessState(pid) == 'T'; })) << ProcessState(pid);
  ASSERT_TRUE(WaitForState(high, "RUNNING")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitForState(high, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  ASSERT_TRUE(WaitForState(low, "RUNNING")) << cluster_->Run("squeue -t all").out;
  EXPECT_TRUE(WaitUntil([&] { return ProcessState(pid) != 'T'; })) << ProcessState(pid);
  EXPECT_NE(cluster_->Run("scontrol show job " + low).out.find("Restarts=0"), std::string::npos);
  ASSERT_EQ(cluster_->Run("scancel " + low).exit_code, 0);
  ASSERT_TRUE(WaitForState(low, "CANCELLED")) << cluster_->Run("squeue -t all").out;
}

}  // namespace
}  // namespace rota
