// Job steps end to end: a real rotactld and two rotad on one host (cgroups
// v1, fake GPUs that open with ENXIO when allowed and EPERM when the devices
// cgroup forbids them), sbatch jobs whose scripts run the built srun.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

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

class StepsTest : public testing::TwoNodeClusterTest {
 protected:
  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    // What each task reports: where it runs, what CUDA sees, and how opening
    // each GPU of its node ends (ENXIO: allowed, no driver; EPERM: forbidden).
    WriteScript(
        "task.sh",
        "#!/bin/sh\n"
        "try() { m=$( (exec 3<\"$1\") 2>&1 ); case \"$m\" in\n"
        "  *'No such device'*) echo ENXIO;; *'not permitted'*) echo EPERM;; *) echo \"?$m\";;"
        " esac; }\n"
        "n=$((SLURM_NODEID + 1))\n"
        "echo T=$SLURM_PROCID N=$SLURM_NODEID L=$SLURM_LOCALID S=$SLURM_STEP_ID"
        " CVD=$CUDA_VISIBLE_DEVICES G0=$(try " +
            DevDir() + "/nvidia${n}_0) G1=$(try " + DevDir() + "/nvidia${n}_1)\n" +
            cluster_->DriverProbeLines());
  }

  // Inside an sbatch allocation with --gpus-per-task, every srun task gets a
  // GPU of its own and can open only that one of its node's GRES files; the
  // driver's files (nvidiactl, uvm, uverbs, fuse) stay open to every task.
  void ExpectEveryTaskOpensItsOwnGpuOnly() {
    std::string id = SubmitScript("-N2 --ntasks-per-node=2 --gpus-per-task=1",
                                  "srun -l " + cluster_->work_dir() + "/task.sh\necho rc=$?\n");
    ASSERT_FALSE(id.empty());
    ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
    std::string out = Output(id);
    EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
    std::map<int, int> enxio_gpu;  // Task -> the GPU it may open
    for (int t = 0; t < 4; ++t) {
      const std::string label = std::to_string(t) + ": ";
      std::string line = LineOf(out, label + "T=" + std::to_string(t) + " ");
      ASSERT_FALSE(line.empty()) << "task " << t << " in:\n" << out;
      EXPECT_NE(line.find(" N=" + std::to_string(t / 2) + " L=" + std::to_string(t % 2) + " S=0 "),
                std::string::npos)
          << line;
      // Confined to one GPU, CUDA numbers it 0.
      EXPECT_NE(line.find(" CVD=0 "), std::string::npos) << line;
      bool g0 = line.find("G0=ENXIO G1=EPERM") != std::string::npos;
      bool g1 = line.find("G0=EPERM G1=ENXIO") != std::string::npos;
      EXPECT_TRUE(g0 != g1) << "exactly one GPU must open: " << line;
      enxio_gpu[t] = g0 ? 0 : 1;
      for (const char* name : {"nvidiactl", "nvidia-uvm", "uverbs0"}) {
        EXPECT_NE(out.find(label + "DRIVER " + name + " ENXIO\n"), std::string::npos)
            << "task " << t << ", " << name << " in:\n"
            << out;
      }
      EXPECT_EQ(out.find(label + "DRIVER fuse EPERM"), std::string::npos) << out;
    }
    EXPECT_NE(enxio_gpu[0], enxio_gpu[1]) << out;
    EXPECT_NE(enxio_gpu[2], enxio_gpu[3]) << out;
  }

  std::string DevDir() const { return (cluster_->dir().path() / "dev").string(); }
  std::string WriteScript(const std::string& name, const std::string& text) {
    std::string path = cluster_->work_dir() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
    return path;
  }

  // The id of the job called `name` that squeue lists ("" when none).
  std::string JobNamed(const std::string& name) {
    const std::string listed = cluster_->Run("squeue -h -o '%i %j'").out;
    for (std::string_view line : Split(listed, '\n')) {
      line = Trim(line);
      if (line.size() > name.size() && line.substr(line.size() - name.size() - 1) == " " + name) {
        return std::string(line.substr(0, line.size() - name.size() - 1));
      }
    }
    return "";
  }
  // The line of `out` starting with `prefix` ("" when none).
  static std::string LineOf(const std::string& out, const std::string& prefix) {
    for (std::string_view line : Split(out, '\n')) {
      if (line.rfind(prefix, 0) == 0) return std::string(line);
    }
    return "";
  }
};

// The case container users report with other schedulers (cgroup v1 here).
TEST_F(StepsTest, GpusPerTaskGivesEveryTaskItsOwnGpuAndOnlyThatOne) {
  ExpectEveryTaskOpensItsOwnGpuOnly();
}

// The same on cgroup v2, where the job's and each task's BPF device programs
// both run.
class StepsCgroupV2Test : public StepsTest {
 protected:
  std::string CgroupConf() const override {
    return "CgroupPlugin=cgroup/v2\nConstrainDevices=yes\n";
  }
};

TEST_F(StepsCgroupV2Test, GpusPerTaskGivesEveryTaskItsOwnGpuAndOnlyThatOne) {
  ExpectEveryTaskOpensItsOwnGpuOnly();
}

TEST_F(StepsTest, StepEnvironmentAndBindingChoices) {
  std::string id = SubmitScript(
      "-N2 --ntasks-per-node=2 --gres=gpu:2",
      "srun -n 3 sh -c 'echo ENV$SLURM_PROCID $SLURM_STEP_ID $SLURM_STEPID $SLURM_NODEID "
      "$SLURM_LOCALID $SLURM_STEP_NODELIST $SLURM_STEP_NUM_TASKS $SLURM_STEP_NUM_NODES "
      "$SLURM_STEP_TASKS_PER_NODE $SLURM_STEP_GPUS'\n"
      // No binding: each task sees (and may open) both of the job's GPUs.
      "srun -N1 -n2 --gpu-bind=none sh -c 'echo NONE$SLURM_PROCID $CUDA_VISIBLE_DEVICES'\n"
      "srun -N1 -n2 --gpu-bind=none " +
          cluster_->work_dir() +
          "/task.sh | sed s/^/NONE/\n"
          // map_gpu: task 0 gets GPU 1, task 1 GPU 0.
          "srun -N1 -n2 --gpu-bind=map_gpu:1,0 " +
          cluster_->work_dir() + "/task.sh | sed s/^/MAP/\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  const std::string nodes = cluster_->NodeList();
  EXPECT_NE(out.find("ENV0 0 0 0 0 " + nodes + " 3 2 2,1 0,1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("ENV1 0 0 0 1 " + nodes + " 3 2 2,1 0,1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("ENV2 0 0 1 0 " + nodes + " 3 2 2,1 0,1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NONE0 0,1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NONE1 0,1\n"), std::string::npos) << out;
  EXPECT_NE(LineOf(out, "NONET=0 ").find("S=2 CVD=0,1 G0=ENXIO G1=ENXIO"), std::string::npos)
      << out;
  EXPECT_NE(LineOf(out, "NONET=1 ").find("CVD=0,1 G0=ENXIO G1=ENXIO"), std::string::npos) << out;
  EXPECT_NE(LineOf(out, "MAPT=0 ").find("S=3 CVD=0 G0=EPERM G1=ENXIO"), std::string::npos) << out;
  EXPECT_NE(LineOf(out, "MAPT=1 ").find("CVD=0 G0=ENXIO G1=EPERM"), std::string::npos) << out;
}

TEST_F(StepsTest, ExitCodesLabelsAndErrors) {
  std::string id =
      SubmitScript("-N2 --ntasks-per-node=1",
                   "srun sh -c 'exit $((SLURM_PROCID + 3))'; echo rc1=$?\n"
                   "srun -n1 sh -c 'kill -9 $$'; echo rc2=$?\n"
                   "srun -l -n2 sh -c 'printf \"a\\nb\"; echo >&2 err$SLURM_PROCID'; echo rc3=$?\n"
                   "srun -n 5 true; echo rc4=$?\n"
                   "srun no-such-command-here; echo rc5=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  EXPECT_NE(out.find("rc1=4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: " + cluster_->Node(2) + ": task 1: Exited with exit code 4\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rc2=137\n"), std::string::npos) << out;
  EXPECT_NE(out.find("0: a\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: b\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: err1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc3=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: Unable to create step for job " + id +
                     ": More processors requested than permitted"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rc4=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot execute no-such-command-here"), std::string::npos) << out;
  EXPECT_NE(out.find("rc5=1\n"), std::string::npos) << out;
}

// srun -m: cyclic deals the tasks round the nodes, plane=2 in pairs; the
// tasks' ids, their nodes and SLURM_DISTRIBUTION say so.
TEST_F(StepsTest, DistributionDealsTheTasksAsAsked) {
  std::string id =
      SubmitScript("-N2 --ntasks-per-node=2",
                   "srun -n4 -m cyclic sh -c 'echo cyclic $SLURM_PROCID $SLURMD_NODENAME "
                   "$SLURM_DISTRIBUTION'\n"
                   "srun -n4 -m plane=2 sh -c 'echo plane $SLURM_PROCID $SLURMD_NODENAME'\n"
                   "srun -n4 sh -c 'echo block $SLURM_PROCID $SLURMD_NODENAME'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  const std::string n1 = cluster_->Node(1), n2 = cluster_->Node(2);
  for (const std::string& line :
       {"cyclic 0 " + n1 + " cyclic", "cyclic 1 " + n2 + " cyclic", "cyclic 2 " + n1 + " cyclic",
        "cyclic 3 " + n2 + " cyclic", "plane 0 " + n1, "plane 1 " + n1, "plane 2 " + n2,
        "plane 3 " + n2, "block 1 " + n1, "block 2 " + n2}) {
    EXPECT_NE(out.find(line + "\n"), std::string::npos) << line << " in:\n" << out;
  }
}

// sbatch -O: the job holds one CPU per node for its 8 tasks, and its steps
// (SLURM_OVERCOMMIT=1 from the job) start all 8, 4 on each node.
TEST_F(StepsTest, AnOvercommittedJobRunsMoreTasksThanItsCpus) {
  std::string id = SubmitScript("-N2 -n8 -O",
                                "echo OVERCOMMIT=$SLURM_OVERCOMMIT NTASKS=$SLURM_NTASKS\n"
                                "srun sh -c 'echo task $SLURMD_NODENAME' | sort | uniq -c\n");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -t all -o %C -j " + id).out), "2");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  EXPECT_NE(out.find("OVERCOMMIT=1 NTASKS=8\n"), std::string::npos) << out;
  for (int n = 1; n <= 2; ++n) {
    EXPECT_NE(out.find("      4 task " + cluster_->Node(n) + "\n"), std::string::npos) << out;
  }
}

TEST_F(StepsTest, CancellingTheJobEndsItsStepsOnEveryNode) {
  std::string pids = cluster_->work_dir() + "/pids";
  std::string id = SubmitScript("-N2 --ntasks-per-node=1",
                                "srun sh -c 'echo $$ >> " + pids + "; exec sleep 300'\n");
  ASSERT_FALSE(id.empty());
  std::string text;
  ASSERT_TRUE(WaitUntil(
      [&] {
        text = std::string(Trim(ReadFileText(pids)));
        return Split(text, '\n').size() == 2;
      },
      std::chrono::seconds(30)))
      << Output(id);
  std::vector<pid_t> tasks;
  for (std::string_view p : Split(text, '\n')) {
    tasks.push_back(static_cast<pid_t>(ParseUint(Trim(p)).value_or(0)));
  }
  for (pid_t p : tasks) EXPECT_TRUE(testing::ProcessAlive(p)) << p;
  cluster_->Run("scancel " + id);
  ASSERT_TRUE(WaitForState(id, "CANCELLED"));
  for (pid_t p : tasks) {
    EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(p); })) << "task pid " << p;
  }
  // The second node's cage was the step's: it is gone with it.
  EXPECT_TRUE(WaitUntil([&] {
    return !std::filesystem::exists(NodedCluster::CgroupDir("freezer", cluster_->Node(2),
                                                            static_cast<uint32_t>(std::stoul(id))));
  }));
}

TEST_F(StepsTest, SqueueListsRunningStepsAndScancelEndsOne) {
  std::string id =
      SubmitScript("-N2 --ntasks-per-node=1",
                   "srun -J sleeper sleep 300; echo rc=$?\nsrun true; echo after=$?\n");
  ASSERT_FALSE(id.empty());
  std::string line;
  ASSERT_TRUE(WaitUntil(
      [&] {
        line = cluster_->Run("squeue -h -s").out;
        return line.find(id + ".0") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << line << Output(id);
  EXPECT_NE(line.find(id + ".0  sleeper     batch     root"), std::string::npos) << line;
  EXPECT_NE(line.find(" " + cluster_->NodeList() + "\n"), std::string::npos) << line;
  std::string header = cluster_->Run("squeue -s -j " + id).out;
  EXPECT_EQ(header.rfind("         STEPID     NAME PARTITION     USER      TIME NODELIST\n", 0), 0u)
      << header;
  CommandResult cancel = cluster_->Run("scancel " + id + ".0");
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out;
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  // The step ends killed; the job goes on with its next step (JOBID.1).
  EXPECT_NE(out.find("rc=137\n"), std::string::npos) << out;
  EXPECT_NE(out.find("after=0\n"), std::string::npos) << out;
  EXPECT_EQ(cluster_->Run("squeue -h -s -j " + id).out, "");
  EXPECT_NE(cluster_->Run("scancel " + id + ".7").exit_code, 0);
}

// salloc: the allocation is granted, the command runs with the job's
// variables and may run steps in it, and the allocation ends with it.
TEST_F(StepsTest, SallocRunsACommandInItsAllocationAndReleasesIt) {
  CommandResult r = cluster_->Run(
      "salloc -N2 --ntasks-per-node=1 sh -c "
      "'echo JOB=$SLURM_JOB_ID NODES=$SLURM_JOB_NODELIST; "
      "echo TPN=$SLURM_TASKS_PER_NODE CPN=$SLURM_JOB_CPUS_PER_NODE; srun sh -c \"echo in "
      "\\$SLURM_JOB_ID.\\$SLURM_STEP_ID.\\$SLURM_PROCID\"; exit 3'");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  std::string id;
  const std::string granted = "salloc: Granted job allocation ";
  size_t at = r.out.find(granted);
  ASSERT_NE(at, std::string::npos) << r.out;
  id = r.out.substr(at + granted.size(), r.out.find('\n', at) - at - granted.size());
  EXPECT_NE(r.out.find("salloc: Pending job allocation " + id + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("JOB=" + id + " NODES=" + cluster_->NodeList() + "\n"), std::string::npos)
      << r.out;
  // What Open MPI's Slurm support reads to place its daemons.
  EXPECT_NE(r.out.find("TPN=1(x2) CPN=1(x2)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in " + id + ".0.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in " + id + ".0.1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("salloc: Relinquishing job allocation " + id + "\n"), std::string::npos)
      << r.out;
  EXPECT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
}

// srun --multi-prog: each task runs its line of the configuration file, on
// the real node daemons, with its rank and offset. A file that leaves a task
// without a program is refused.
TEST_F(StepsTest, MultiProgRunsEachTasksOwnProgram) {
  WriteScript("mp.conf",
              "0    echo leader %t\n"
              "1-3  sh -c 'echo worker %o on $SLURM_STEP_ID'\n");
  WriteScript("short.conf", "0-1 true\n");
  const std::string id = SubmitScript("-N2 --ntasks-per-node=2",
                                      "srun -l --multi-prog mp.conf\n"
                                      "srun -n4 --multi-prog short.conf; echo rc=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  EXPECT_NE(out.find("0: leader 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: worker 0 on 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("3: worker 2 on 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: Configuration file short.conf invalid, no record for task id 2\n"
                     "rc=1\n"),
            std::string::npos)
      << out;
}

// -o/-e/-i: per-task and per-node files written on the nodes, one file for
// all tasks written by srun, one task's output, none.
TEST_F(StepsTest, OutputErrorAndInputOptions) {
  const std::string both = "sh -c 'echo o$SLURM_PROCID; echo e$SLURM_PROCID >&2'";
  std::string id = SubmitScript(
      "-N2 --ntasks-per-node=2",
      "cd " + cluster_->work_dir() + "\n" + "srun -o out-%t.txt " + both + "; echo rc1=$?\n" +
          "srun -o node-%N.txt -e err-%n-%j-%s.txt " + both + "; echo rc2=$?\n" +
          "srun -o all-%J.txt sh -c 'echo a$SLURM_PROCID'; echo rc3=$?\n" +
          "srun -o 2 sh -c 'echo only$SLURM_PROCID'; echo rc4=$?\n" +
          "srun -o none sh -c 'echo hidden; echo hidden >&2'; echo rc5=$?\n" +
          "echo IN0 > in-0.txt; echo IN1 > in-1.txt\n"
          "srun -n2 -l -i in-%t.txt cat; echo rc6=$?\n"
          "srun -n1 -i missing-%t.txt cat; echo rc7=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  for (int rc = 1; rc <= 6; ++rc) {
    EXPECT_NE(out.find("rc" + std::to_string(rc) + "=0\n"), std::string::npos) << rc << out;
  }
  const std::string dir = cluster_->work_dir() + "/";
  for (int t = 0; t < 4; ++t) {
    std::string mine = "o" + std::to_string(t) + "\ne" + std::to_string(t) + "\n";
    EXPECT_EQ(ReadFileText(dir + "out-" + std::to_string(t) + ".txt"), mine) << t;
  }
  // Per node: both tasks of the node in one file, stderr in its own.
  std::string node1 = ReadFileText(dir + "node-" + cluster_->Node(1) + ".txt");
  std::string node2 = ReadFileText(dir + "node-" + cluster_->Node(2) + ".txt");
  EXPECT_NE(node1.find("o0\n"), std::string::npos) << node1;
  EXPECT_NE(node1.find("o1\n"), std::string::npos) << node1;
  EXPECT_EQ(node1.find("e0"), std::string::npos) << node1;
  EXPECT_NE(node2.find("o3\n"), std::string::npos) << node2;
  std::string err1 = ReadFileText(dir + "err-1-" + id + "-1.txt");
  EXPECT_NE(err1.find("e2\n"), std::string::npos) << err1;
  EXPECT_NE(err1.find("e3\n"), std::string::npos) << err1;
  // One file for every task: srun's.
  std::string all = ReadFileText(dir + "all-" + id + ".2.txt");
  for (int t = 0; t < 4; ++t) {
    EXPECT_NE(all.find("a" + std::to_string(t) + "\n"), std::string::npos) << all;
  }
  EXPECT_EQ(out.find("\na0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("only2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("only0"), std::string::npos) << out;
  EXPECT_EQ(out.find("only3"), std::string::npos) << out;
  EXPECT_EQ(out.find("hidden"), std::string::npos) << out;
  EXPECT_NE(out.find("0: IN0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: IN1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot open missing-0.txt: No such file or directory"), std::string::npos)
      << out;
  EXPECT_NE(out.find("rc7=1\n"), std::string::npos) << out;
}

// srun's stdin: task 0 by default, every task with -i all, one with -i N,
// none with -i none; its end reaches the tasks (cat ends).
TEST_F(StepsTest, StdinGoesToTaskZeroAllOneOrNone) {
  std::string id =
      SubmitScript("-N2 --ntasks-per-node=1",
                   "echo hello | srun -n2 -l cat; echo rc1=$?\n"
                   "printf 'x\\ny\\n' | srun -n2 -l -i all cat; echo rc2=$?\n"
                   "echo dropped | srun -n2 -l -i none sh -c 'cat; echo done'; echo rc3=$?\n"
                   "echo to1 | srun -n2 -l --input=1 cat; echo rc4=$?\n"
                   "srun -n1 cat < /dev/null; echo rc5=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  for (int rc = 1; rc <= 5; ++rc) {
    EXPECT_NE(out.find("rc" + std::to_string(rc) + "=0\n"), std::string::npos) << rc << out;
  }
  EXPECT_NE(out.find("0: hello\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("1: hello"), std::string::npos) << out;
  for (const char* line :
       {"0: x\n", "0: y\n", "1: x\n", "1: y\n", "0: done\n", "1: done\n", "1: to1\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << out;
  }
  EXPECT_EQ(out.find("dropped"), std::string::npos) << out;
  EXPECT_EQ(out.find("0: to1"), std::string::npos) << out;
}

// -K ends the step when a task fails (srun exits with its code); -W ends it
// SECS after the first task ended; exit codes win over signals.
TEST_F(StepsTest, KillOnBadExitAndWait) {
  const std::string pids = cluster_->work_dir() + "/kpids";
  std::string id = SubmitScript(
      "-N2 --ntasks-per-node=1",
      "srun -K sh -c 'if [ $SLURM_PROCID = 1 ]; then sleep 1; exit 3; fi; echo $$ >> " + pids +
          "; exec sleep 100'; echo rcK=$?\n"
          "srun -W 1 sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 0; fi; exec sleep 100';"
          " echo rcW=$?\n"
          "srun sh -c 'if [ $SLURM_PROCID = 1 ]; then kill -9 $$; fi; exit 2'; echo rcX=$?\n"
          "srun sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 3; fi; sleep 2'; echo rcNoK=$?\n"
          // ^C once prints the tasks' status, twice within a second ends the step.
          "srun sleep 30 & p=$!; sleep 3; kill -INT $p; sleep 1.5; kill -INT $p; sleep 0.3;"
          " kill -INT $p; wait $p; echo rcC=$?\n");
  ASSERT_FALSE(id.empty());
  // Without -K/-W the sleeps would outlast this wait.
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  EXPECT_NE(out.find("rcK=3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: Terminating StepId=" + id + ".0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("task 0: Killed"), std::string::npos) << out;
  EXPECT_NE(out.find("rcW=137\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: First task exited 1s ago"), std::string::npos) << out;
  EXPECT_NE(out.find("rcX=2\n"), std::string::npos) << out;
  // Without -K the other task runs to its end.
  EXPECT_NE(out.find("rcNoK=3\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("Terminating StepId=" + id + ".3"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: interrupt (one more within 1 sec to abort)\nsrun: StepId=" + id +
                     ".4 tasks 0-1: running\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("srun: Terminating StepId=" + id + ".4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcC=137\n"), std::string::npos) << out;
  const std::string pid_text(Trim(ReadFileText(pids)));
  EXPECT_FALSE(pid_text.empty());
  for (std::string_view p : Split(pid_text, '\n')) {
    EXPECT_FALSE(testing::ProcessAlive(static_cast<pid_t>(ParseUint(Trim(p)).value_or(0)))) << p;
  }
}

// Outside an allocation srun gets one (as salloc would), runs the step in it
// and gives it back; the job ends COMPLETED.
TEST_F(StepsTest, SrunOutsideAnAllocationAllocatesRunsAndReleases) {
  CommandResult r = cluster_->Run("env -u SLURM_JOB_ID -C " + cluster_->work_dir() +
                                  " srun -N2 -n3 -l sh -c "
                                  "'echo in $SLURM_JOB_ID.$SLURM_STEP_ID $SLURM_JOB_NUM_NODES; "
                                  "exit $SLURM_PROCID'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::string allocated = " has been allocated resources\n";
  size_t at = r.out.find(allocated);
  ASSERT_NE(at, std::string::npos) << r.out;
  size_t start = r.out.rfind("srun: job ", at);
  ASSERT_NE(start, std::string::npos) << r.out;
  std::string id = r.out.substr(start + 10, at - start - 10);
  for (int t = 0; t < 3; ++t) {
    EXPECT_NE(r.out.find(std::to_string(t) + ": in " + id + ".0 2\n"), std::string::npos) << r.out;
  }
  EXPECT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  // Refused like sbatch's requests.
  CommandResult bad = cluster_->Run("env -u SLURM_JOB_ID srun --gres=gpu:9 true");
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("srun: error: Unable to allocate resources: Requested node "
                         "configuration is not available"),
            std::string::npos)
      << bad.out;
}

// While the cluster is busy srun says it waits; cancelling its job (pending
// or running) ends srun.
TEST_F(StepsTest, SrunOutsideAnAllocationWaitsAndEndsWithItsJob) {
  std::string busy = SubmitScript("-N2 --ntasks-per-node=2", "sleep 300\n");
  ASSERT_FALSE(busy.empty());
  ASSERT_TRUE(WaitForState(busy, "RUNNING"));
  const std::string log = cluster_->work_dir() + "/srun-pending.log";
  cluster_->Run("env -u SLURM_JOB_ID sh -c 'srun -N1 -J waiter true; echo rc=$?' > " + log +
                " 2>&1 < /dev/null &");
  std::string waiter;
  ASSERT_TRUE(WaitUntil([&] {
    waiter = JobNamed("waiter");
    return !waiter.empty() && ReadFileText(log).find("queued") != std::string::npos;
  })) << ReadFileText(log);
  EXPECT_NE(ReadFileText(log).find("srun: job " + waiter + " queued and waiting for resources\n"),
            std::string::npos)
      << ReadFileText(log);
  cluster_->Run("scancel " + waiter);
  ASSERT_TRUE(WaitUntil([&] { return ReadFileText(log).find("rc=") != std::string::npos; }))
      << ReadFileText(log);
  EXPECT_NE(ReadFileText(log).find("srun: error: Job allocation " + waiter +
                                   " has been revoked.\nrc=1\n"),
            std::string::npos)
      << ReadFileText(log);
  cluster_->Run("scancel " + busy);
  ASSERT_TRUE(WaitForState(busy, "CANCELLED"));

  // Running: cancelling the job ends the step and srun.
  const std::string log2 = cluster_->work_dir() + "/srun-running.log";
  cluster_->Run("env -u SLURM_JOB_ID sh -c 'srun -N1 -J runner sleep 300; echo rc=$?' > " + log2 +
                " 2>&1 < /dev/null &");
  std::string runner;
  ASSERT_TRUE(WaitUntil([&] {
    runner = JobNamed("runner");
    return !runner.empty() && !cluster_->Run("squeue -h -s -j " + runner).out.empty();
  })) << ReadFileText(log2);
  cluster_->Run("scancel " + runner);
  ASSERT_TRUE(WaitUntil([&] { return ReadFileText(log2).find("rc=") != std::string::npos; }))
      << ReadFileText(log2);
  EXPECT_EQ(ReadFileText(log2).find("rc=0\n"), std::string::npos) << ReadFileText(log2);
  EXPECT_TRUE(WaitForState(runner, "CANCELLED"));
}

// salloc --no-shell: the allocation is granted and stays after salloc exits,
// for sruns given its id, until scancel.
TEST_F(StepsTest, SallocNoShellLeavesTheAllocationRunning) {
  CommandResult r = cluster_->Run("salloc --no-shell -N1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string granted = "salloc: Granted job allocation ";
  size_t at = r.out.find(granted);
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string id = r.out.substr(at + granted.size(), r.out.find('\n', at) - at - granted.size());
  EXPECT_EQ(r.out.find("Relinquishing"), std::string::npos) << r.out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + id).out), "RUNNING");
  CommandResult step = cluster_->Run("srun --jobid=" + id + " sh -c 'echo in $SLURM_JOB_ID'");
  EXPECT_EQ(step.exit_code, 0) << step.out;
  EXPECT_NE(step.out.find("in " + id + "\n"), std::string::npos) << step.out;
  EXPECT_EQ(Trim(cluster_->Run("squeue -h -o %T -j " + id).out), "RUNNING");
  cluster_->Run("scancel " + id);
  EXPECT_TRUE(WaitForState(id, "CANCELLED"));
}

// %A and %a in -o/-e name an array task's files; a step asking for more
// nodes than its allocation has is refused at once, with Slurm's words.
TEST_F(StepsTest, ArrayTaskPatternsAndTooManyNodes) {
  std::string array = SubmitScript("--array=1-2 -N1",
                                   "cd " + cluster_->work_dir() + "\n" +
                                       "srun -o step-%A_%a.out sh -c 'echo A$SLURM_ARRAY_TASK_ID'\n"
                                       "srun -o task-%a-%t.out sh -c 'echo B$SLURM_ARRAY_TASK_ID'\n"
                                       "srun -N2 true; echo rc=$?\n");
  ASSERT_FALSE(array.empty());
  const std::string dir = cluster_->work_dir() + "/";
  for (int t = 1; t <= 2; ++t) {
    const std::string a = std::to_string(t);
    EXPECT_TRUE(
        WaitUntil([&] { return ReadFileText(dir + "task-" + a + "-0.out") == "B" + a + "\n"; },
                  std::chrono::seconds(40)))
        << a;
    EXPECT_EQ(ReadFileText(dir + "step-" + array + "_" + a + ".out"), "A" + a + "\n") << a;
  }
  std::string out;
  EXPECT_TRUE(WaitUntil(
      [&] {
        out = ReadFileText(dir + "slurm-" + array + "_1.out");
        return out.find("rc=") != std::string::npos;
      },
      std::chrono::seconds(40)));
  EXPECT_NE(out.find("srun: error: Only allocated 1 nodes asked for 2\nrc=1\n"), std::string::npos)
      << out;
}

// A task that does not read its stdin holds srun back, instead of srun
// reading all it is given and its node buffering it: what a writer to srun
// gets rid of stays bounded until the task reads. Nothing is lost.
TEST_F(StepsTest, StdinToATaskThatDoesNotReadIsBoundedAndComplete) {
  CommandResult alloc = cluster_->Run("salloc --no-shell -N1");
  ASSERT_EQ(alloc.exit_code, 0) << alloc.out;
  const std::string granted = "salloc: Granted job allocation ";
  size_t at = alloc.out.find(granted);
  ASSERT_NE(at, std::string::npos) << alloc.out;
  std::string id =
      alloc.out.substr(at + granted.size(), alloc.out.find('\n', at) - at - granted.size());
  signal(SIGPIPE, SIG_IGN);  // A failing srun must fail the test, not kill it.
  const std::string go = cluster_->work_dir() + "/go";
  int in[2];
  int out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  const std::string command = "SLURM_CONF=" + cluster_->conf() + " PATH=" + testing::BinDir() +
                              ":$PATH srun --jobid=" + id + " sh -c 'while [ ! -e " + go +
                              " ]; do sleep 0.1; done; wc -c'";
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  close(in[0]);
  close(out[1]);
  fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
  // Write until srun takes no more for a second (or far more than any bound).
  constexpr size_t kTotal = 128u << 20;
  const std::string chunk(64 << 10, 'x');
  size_t written = 0;
  auto last_progress = std::chrono::steady_clock::now();
  while (written < kTotal &&
         std::chrono::steady_clock::now() - last_progress < std::chrono::seconds(1)) {
    pollfd p{in[1], POLLOUT, 0};
    poll(&p, 1, 100);
    ssize_t n = write(in[1], chunk.data(), std::min(chunk.size(), kTotal - written));
    if (n > 0) {
      written += static_cast<size_t>(n);
      last_progress = std::chrono::steady_clock::now();
    }
  }
  // Pipes, srun's backlog, TCP buffers and the node's buffer: some MiB.
  EXPECT_LT(written, 48u << 20) << "srun took " << written << " bytes the task never read";
  // The task reads now; the rest goes through.
  std::ofstream(go) << "";
  fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) & ~O_NONBLOCK);
  while (written < kTotal) {
    ssize_t n = write(in[1], chunk.data(), std::min(chunk.size(), kTotal - written));
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  close(in[1]);
  std::string shown;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0) shown.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << shown;
  EXPECT_EQ(Trim(shown), std::to_string(kTotal)) << shown;
  cluster_->Run("scancel " + id);
}

// Steps hold their CPUs apart (Slurm 22.05): in a one-CPU allocation a second
// step waits for the first to end, unless it overlaps; one that can never fit
// fails at once.
TEST_F(StepsTest, StepsWaitForCpusOtherStepsHoldUnlessTheyOverlap) {
  const std::string log = cluster_->work_dir() + "/order";
  // A step that writes X1, sleeps and writes X2, in the background; the
  // script goes on once X1 is written.
  auto first = [&](const std::string& x) {
    return "srun -n1 sh -c 'echo " + x + "1 >> " + log + "; sleep 3; echo " + x + "2 >> " + log +
           "' &\nwhile ! grep -q " + x + "1 " + log + " 2>/dev/null; do sleep 0.1; done\n";
  };
  std::string id = SubmitScript("-n1", first("A") + "srun -n1 sh -c 'echo B >> " + log +
                                           "'; echo rcB=$?\nwait\n" + first("C") +
                                           "srun -n1 --overlap sh -c 'echo D >> " + log +
                                           "'; echo rcO=$?\nwait\n"
                                           "srun -n1 --mem=100000 true; echo rcM=$?\n"
                                           "srun -n2 true; echo rcN=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  EXPECT_EQ(ReadFileText(log), "A1\nA2\nB\nC1\nD\nC2\n") << out;
  EXPECT_NE(out.find("srun: Job " + id +
                     " step creation temporarily disabled, retrying (Requested nodes are busy)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("srun: Step created for StepId=" + id + ".1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcB=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcO=0\n"), std::string::npos) << out;
  // The overlapping step did not wait: one "retrying" line in all.
  EXPECT_EQ(out.find("retrying", out.find("retrying") + 1), std::string::npos) << out;
  EXPECT_NE(out.find("Unable to create step for job " + id +
                     ": Memory required by task is not available"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rcM=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Unable to create step for job " + id + ": More processors requested"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rcN=1\n"), std::string::npos) << out;
}

// --cpu-bind: each task's affinity (what /proc/self/status shows) and the
// SLURM_CPU_BIND* variables; verbose prints Slurm's line per task.
TEST_F(StepsTest, CpuBindSetsEachTasksAffinity) {
  const std::string show =
      " sh -c 'echo BIND$SLURM_PROCID $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
      " $SLURM_CPU_BIND_TYPE $SLURM_CPU_BIND'";
  std::string id = SubmitScript("-N1 -n2", "srun -n2 --cpu-bind=verbose,cores" + show +
                                               "\nsrun -n2 --cpu-bind=map_cpu:1,0" + show +
                                               " | sed s/^/MAP/\n"
                                               "srun -n2 --cpu-bind=none" +
                                               show +
                                               " | sed s/^/NONE/\n"
                                               "srun -n1 --cpu-bind=sideways true; echo rcX=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  std::string out = Output(id);
  const std::string b0 = LineOf(out, "BIND0 ");
  const std::string b1 = LineOf(out, "BIND1 ");
  ASSERT_FALSE(b0.empty()) << out;
  ASSERT_FALSE(b1.empty()) << out;
  // One CPU each (the host has CPUs 0 and 1, as the node's CPUs=2 says), not the same.
  std::vector<std::string_view> f0 = Split(b0, ' ');
  std::vector<std::string_view> f1 = Split(b1, ' ');
  ASSERT_EQ(f0.size(), 4u) << b0;
  ASSERT_EQ(f1.size(), 4u) << b1;
  EXPECT_TRUE(f0[1] == "0" || f0[1] == "1") << b0;
  EXPECT_TRUE(f1[1] == "0" || f1[1] == "1") << b1;
  EXPECT_NE(f0[1], f1[1]) << out;
  EXPECT_EQ(f0[2], "mask_cpu:") << b0;
  EXPECT_EQ(f0[3], "verbose,mask_cpu:0x1,0x2") << b0;
  const std::string node = out.find("cpu-bind=MASK - " + cluster_->Node(1)) != std::string::npos
                               ? cluster_->Node(1)
                               : cluster_->Node(2);
  EXPECT_NE(out.find("cpu-bind=MASK - " + node + ", task  0  0 ["), std::string::npos) << out;
  EXPECT_NE(out.find("cpu-bind=MASK - " + node + ", task  1  1 ["), std::string::npos) << out;
  EXPECT_NE(out.find("]: mask 0x2 set\n"), std::string::npos) << out;
  EXPECT_EQ(LineOf(out, "MAPBIND0 "), "MAPBIND0 1 map_cpu: quiet,map_cpu:1,0") << out;
  EXPECT_EQ(LineOf(out, "MAPBIND1 "), "MAPBIND1 0 map_cpu: quiet,map_cpu:1,0") << out;
  EXPECT_EQ(LineOf(out, "NONEBIND0 "), "NONEBIND0 0-1 none quiet,none") << out;
  EXPECT_NE(out.find("srun: error: Invalid --cpu-bind argument: sideways\nrcX=1\n"),
            std::string::npos)
      << out;
}

// --mem-bind: each task's memory policy (what /proc/self/numa_maps shows of
// the task's own mappings) and the SLURM_MEM_BIND* variables; NUMA node 0
// is on every host.
TEST_F(StepsTest, MemBindSetsEachTasksMemoryPolicy) {
  const std::string show =
      " sh -c 'echo POL$SLURM_PROCID $(head -1 /proc/self/numa_maps | cut -d\" \" -f2)"
      " $SLURM_MEM_BIND_TYPE $SLURM_MEM_BIND'";
  std::string id = SubmitScript("-N1 -n2", "srun -n2 --mem-bind=map_mem:0" + show +
                                               "\nsrun -n1 --mem-bind=prefer,local" + show +
                                               " | sed s/^/PREF/\n"
                                               "srun -n1" +
                                               show +
                                               " | sed s/^/DEF/\n"
                                               "srun -n1 --mem-bind=map_mem:4095 true; echo "
                                               "rcM=$?\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  EXPECT_EQ(LineOf(out, "POL0 "), "POL0 bind:0 map_mem: quiet,map_mem:0,0") << out;
  EXPECT_EQ(LineOf(out, "POL1 "), "POL1 bind:0 map_mem: quiet,map_mem:0,0") << out;
  EXPECT_EQ(LineOf(out, "PREFPOL0 "), "PREFPOL0 prefer:0 local quiet,prefer,local") << out;
  EXPECT_EQ(LineOf(out, "DEFPOL0 "), "DEFPOL0 default none quiet,none") << out;
  // A NUMA node the host lacks: the node refuses the launch, srun fails.
  EXPECT_NE(out.find("rcM="), std::string::npos) << out;
  EXPECT_EQ(out.find("rcM=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("which this node lacks"), std::string::npos) << out;
}

// The job's --mem-bind reaches its steps through SLURM_MEM_BIND, as sbatch
// sets it; srun's own option wins.
TEST_F(StepsTest, TheJobsMemBindReachesItsSteps) {
  const std::string show =
      " sh -c 'echo POL$SLURM_PROCID $(head -1 /proc/self/numa_maps | cut "
      "-d\" \" -f2) $SLURM_MEM_BIND_VERBOSE'";
  std::string id = SubmitScript("-N1 -n1 --mem-bind=verbose,map_mem:0",
                                "echo JOB=$SLURM_MEM_BIND\nsrun -n1" + show +
                                    "\nsrun -n1 --mem-bind=none" + show + " | sed s/^/OWN/\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  EXPECT_NE(out.find("JOB=verbose,map_mem:0\n"), std::string::npos) << out;
  EXPECT_EQ(LineOf(out, "POL0 "), "POL0 bind:0 verbose") << out;
  EXPECT_NE(out.find("mem-bind=MAP  - "), std::string::npos) << out;
  EXPECT_EQ(LineOf(out, "OWNPOL0 "), "OWNPOL0 default quiet") << out;
}

// A step's cage below the job's (cgroup v1 here): its memory is the step's
// --mem, a task that outgrows it is killed by the kernel and srun says Out Of
// Memory, while the job and its next step carry on; the cage goes with the step.
TEST_F(StepsTest, AStepsCageHoldsItsMemoryAndItsOomKillSparesTheJob) {
  std::string id = SubmitScript(
      "-N1 -n2 --mem=300M",
      // Quoted for the task's shell: the step's own memory cgroup and limit.
      "srun -n1 --mem=60M sh -c 'm=$(sed -n \"s/^[0-9]*:memory://p\" /proc/self/cgroup);"
      " echo CG=$m LIMIT=$(cat /sys/fs/cgroup/memory$m/memory.limit_in_bytes)'\n"
      // tail keeps a line with no end in memory: 400 MB of it.
      "srun -n1 --mem=60M sh -c 'head -c 400M /dev/zero | tail > /dev/null'; echo rcO=$?\n"
      "srun -n1 true; echo rcT=$?\n"
      // rotad removes a step's cage just after srun heard its tasks end: up to 5 s.
      "for i in $(seq 50); do ls -d /sys/fs/cgroup/*/rota/*/uid_*/job_$SLURM_JOB_ID/step_* "
      ">/dev/null 2>&1 || break; sleep 0.1; done\n"
      "echo STEPS=$(ls -d /sys/fs/cgroup/*/rota/*/uid_*/job_$SLURM_JOB_ID/step_* 2>/dev/null |"
      " wc -l)\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  const std::string cg = LineOf(out, "CG=");
  EXPECT_NE(cg.find("/rota/"), std::string::npos) << out;
  EXPECT_NE(cg.find("/uid_0/job_" + id + "/step_0 LIMIT=62914560"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: "), std::string::npos) << out;
  EXPECT_NE(out.find(": task 0: Out Of Memory\n"), std::string::npos) << out;
  EXPECT_NE(out.find("oom-kill event(s) in StepId=" + id + ".1 cgroup"), std::string::npos) << out;
  EXPECT_NE(out.find("rcO=137\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rcT=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("STEPS=0\n"), std::string::npos) << out;
}

// --cpu-bind under ConstrainCores: each task's own cpuset (step_<s>/task_<n>)
// holds exactly its CPUs, so widening its affinity to every CPU leaves it
// with its own.
TEST_F(StepsTest, ABoundTaskCannotWidenItsAffinity) {
  std::string id =
      SubmitScript("-N1 -n2",
                   "srun -n2 --cpu-bind=cores sh -c 'taskset -cp 0-1 $$ >/dev/null 2>&1; echo "
                   "WIDE$SLURM_PROCID $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
                   " $(sed -n \"s/^[0-9]*:cpuset://p\" /proc/self/cgroup)'\n"
                   "srun -n2 --cpu-bind=none sh -c 'taskset -cp 0-1 $$ >/dev/null 2>&1; echo "
                   "FREE$SLURM_PROCID $(grep Cpus_allowed_list /proc/self/status | cut -f2)'\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  std::vector<std::string> cpus;
  for (int task = 0; task < 2; ++task) {
    const std::string line = LineOf(out, "WIDE" + std::to_string(task) + " ");
    std::vector<std::string_view> f = Split(line, ' ');
    ASSERT_EQ(f.size(), 3u) << out;
    EXPECT_TRUE(f[1] == "0" || f[1] == "1") << line;
    cpus.emplace_back(f[1]);
    EXPECT_NE(f[2].find("/job_" + id + "/step_0/task_" + std::to_string(task)), std::string::npos)
        << line;
  }
  EXPECT_NE(cpus[0], cpus[1]) << out;
  // Unbound tasks live in their step's cpuset and may use all of it.
  EXPECT_EQ(LineOf(out, "FREE0 "), "FREE0 0-1") << out;
  EXPECT_EQ(LineOf(out, "FREE1 "), "FREE1 0-1") << out;
}

// What a step launch costs end to end (srun in a job, both daemons ASan
// builds on a shared host): the median wall time of `srun -n2 true` with
// the node's default binding (a step cage) and with --cpu-bind=cores (a step
// cage and a cpuset cage per task). Printed for comparison; bounded loosely.
TEST_F(StepsTest, StepLaunchTime) {
  std::string id =
      SubmitScript("-N1 -n2",
                   "t() { t0=$(date +%s%N); srun -n2 $2 true; t1=$(date +%s%N);"
                   " echo LAUNCH $1 $(( (t1 - t0) / 1000000 )); }\n"
                   "for i in 1 2 3 4 5 6 7 8 9 10 11; do t default; done\n"
                   "for i in 1 2 3 4 5 6 7 8 9 10 11; do t cores --cpu-bind=cores; done\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  for (const std::string bind : {"default", "cores"}) {
    std::vector<int64_t> ms;
    for (std::string_view line : Split(out, '\n')) {
      const std::string prefix = "LAUNCH " + bind + " ";
      if (line.rfind(prefix, 0) != 0) continue;
      if (auto v = ParseInt(Trim(line.substr(prefix.size())))) ms.push_back(*v);
    }
    ASSERT_EQ(ms.size(), 11u) << out;
    std::sort(ms.begin(), ms.end());
    std::cerr << "srun -n2 --cpu-bind=" << bind << " true: median " << ms[5] << " ms\n";
    EXPECT_LT(ms[5], 5000) << out;
  }
}

// A step's GPUs come out of the job's: two concurrent one-GPU steps of a
// two-GPU job get one each, see it as CUDA device 0 and may open only it.
TEST_F(StepsTest, ConcurrentStepsGetGpusOfTheirOwn) {
  const std::string dir = cluster_->work_dir() + "/";
  std::string id = SubmitScript("-N1 -n2 --gres=gpu:2",
                                "srun -n1 --gres=gpu:1 sh -c '" + dir + "task.sh > " + dir +
                                    "g1.out; sleep 3' &\n" + "while [ ! -s " + dir +
                                    "g1.out ]; do sleep 0.1; done\n" + "srun -n1 --gres=gpu:1 " +
                                    dir + "task.sh > " + dir + "g2.out; echo rc=$?\nwait\n");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string g1 = ReadFileText(dir + "g1.out");
  const std::string g2 = ReadFileText(dir + "g2.out");
  EXPECT_NE(Output(id).find("rc=0\n"), std::string::npos) << Output(id);
  EXPECT_NE(g1.find("S=0 CVD=0 G0=ENXIO G1=EPERM"), std::string::npos) << g1;
  EXPECT_NE(g2.find("S=1 CVD=0 G0=EPERM G1=ENXIO"), std::string::npos) << g2;
}

}  // namespace
}  // namespace rota
