// slurm.conf's TaskProlog, TaskEpilog and PropagateResourceLimits end to end
// on the two-node cluster (real rotactld, two rotad, sbatch and srun): the
// TaskProlog runs in each task's own process before it (batch script and
// srun tasks alike) and its export/unset/print lines act on that task; a
// failing one fails the task; the TaskEpilog runs after each task as its
// user; the submitting command's soft limits named by PropagateResourceLimits
// reach the tasks, the others do not.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ReadFileText;
using testing::WaitUntil;

class TaskScriptsTest : public testing::TwoNodeClusterTest {
 protected:
  static std::string Base() { return "/tmp/rota-taskscripts-" + std::to_string(getpid()); }
  std::string Settings() const override {
    return "TaskProlog=" + Base() + ".prolog\nTaskEpilog=" + Base() +
           ".epilog\nPropagateResourceLimits=NOFILE,CORE\n";
  }
  void SetUp() override {
    // The prolog prints the pid it was given (the task's), exports and
    // unsets, and fails when the task's environment asks it to.
    WriteScript(Base() + ".prolog",
                "#!/bin/sh\n"
                "[ -n \"$FAIL_PROLOG\" ] && { echo 'print never shown'; exit 7; }\n"
                "echo \"print prolog pid $SLURM_TASK_PID\"\n"
                "echo 'export FROM_PROLOG=set by the prolog'\n"
                "echo \"export PROLOG_SAW=$SLURM_TASK_PID\"\n"
                "echo 'unset DROP_ME'\n"
                "echo 'this line means nothing'\n");
    // The epilog, in the task's work dir and as its user, logs what it saw.
    WriteScript(Base() + ".epilog",
                "#!/bin/sh\n"
                "echo \"$SLURM_JOB_ID $SLURM_SCRIPT_CONTEXT uid=$(id -u)"
                " prolog=${FROM_PROLOG:-none}\" >> task_epilog.log\n");
    TwoNodeClusterTest::SetUp();
  }
  void TearDown() override {
    TwoNodeClusterTest::TearDown();
    std::filesystem::remove(Base() + ".prolog");
    std::filesystem::remove(Base() + ".epilog");
  }
  static void WriteScript(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
  }
  // Submits `script` with `options`, sbatch started by a shell that runs
  // `before` first; returns the job id.
  std::string Submit(const std::string& script, const std::string& before = "",
                     const std::string& options = "") {
    const std::string path = cluster_->work_dir() + "/job" + std::to_string(++scripts_) + ".sh";
    WriteScript(path, "#!/bin/sh\nexport PATH=" + testing::BinDir() +
                          ":$PATH\nexport SLURM_CONF=" + cluster_->conf() + "\n" + script);
    CommandResult r = cluster_->Run("sh -c '" + before + " exec sbatch --parsable --chdir=" +
                                    cluster_->work_dir() + " " + options + " " + path + "'");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }
  std::vector<std::string> EpilogLines(const std::string& job) {
    std::vector<std::string> lines;
    const std::string log = ReadFileText(cluster_->work_dir() + "/task_epilog.log");
    for (std::string_view line : Split(log, '\n')) {
      if (line.rfind(job + " ", 0) == 0) lines.emplace_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  int scripts_ = 0;
};

TEST_F(TaskScriptsTest, PrologActsOnTheBatchScriptAndEveryStepTask) {
  const std::string job = Submit(
      "echo \"task pid $$ saw=$PROLOG_SAW FROM_PROLOG=$FROM_PROLOG DROP_ME=${DROP_ME-gone}\"\n"
      "DROP_ME=again srun -N2 -n2 sh -c 'echo \"task pid $$ saw=$PROLOG_SAW "
      "FROM_PROLOG=$FROM_PROLOG"
      " DROP_ME=${DROP_ME-gone}\"'\n",
      "export DROP_ME=1;", "-N2");
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Output(job);
  const std::string out = Output(job);
  // print lines reach the task's output; each names the pid of the process
  // the task itself then runs in.
  std::set<std::string> prolog_pids;  // The pids the prologs were told
  std::set<std::string> task_pids;    // The pids the tasks ran as
  for (std::string_view line : Split(out, '\n')) {
    std::vector<std::string_view> w = Split(line, ' ');
    if (w.size() == 3 && w[0] == "prolog" && w[1] == "pid") prolog_pids.emplace(w[2]);
    if (w.size() >= 4 && w[0] == "task" && w[1] == "pid") {
      task_pids.emplace(w[2]);
      // Each task's own prolog exported to it (not one inherited from the batch script's).
      EXPECT_EQ(w[3], "saw=" + std::string(w[2])) << line;
    }
  }
  EXPECT_EQ(prolog_pids.size(), 3u) << out;
  EXPECT_EQ(prolog_pids, task_pids) << out;
  // export and unset changed each task's environment, value blanks and all.
  EXPECT_NE(out.find("FROM_PROLOG=set by the prolog DROP_ME=gone\n"), std::string::npos) << out;
  size_t exported = 0;
  for (size_t at = 0;
       (at = out.find("FROM_PROLOG=set by the prolog DROP_ME=gone", at)) != std::string::npos;
       ++at) {
    ++exported;
  }
  EXPECT_EQ(exported, 3u) << out;
  EXPECT_EQ(out.find("this line means nothing"), std::string::npos) << out;

  // The TaskEpilog ran after each of the three tasks, as the job's user, with
  // the task's environment: not what the task's own prolog exported (the
  // batch script's), but what the task started with (srun passes on the
  // batch script's environment, the export included).
  EXPECT_TRUE(WaitUntil([&] { return EpilogLines(job).size() == 3; }))
      << ReadFileText(cluster_->work_dir() + "/task_epilog.log");
  EXPECT_EQ(EpilogLines(job), (std::vector<std::string>{
                                  job + " epilog_task uid=0 prolog=none",
                                  job + " epilog_task uid=0 prolog=set by the prolog",
                                  job + " epilog_task uid=0 prolog=set by the prolog",
                              }));
}

TEST_F(TaskScriptsTest, AFailingPrologFailsTheTaskWithItsStatus) {
  const std::string marker = cluster_->work_dir() + "/script-ran";
  const std::string job = Submit("touch " + marker + "\n", "export FAIL_PROLOG=1;");
  ASSERT_TRUE(WaitForState(job, "FAILED")) << Output(job);
  EXPECT_NE(cluster_->Run("scontrol show job " + job).out.find("ExitCode=7:0"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(marker));
  const std::string out = Output(job);
  EXPECT_NE(out.find("TaskProlog " + Base() + ".prolog failed with status 7"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("never shown"), std::string::npos) << out;

  // An srun task whose prolog fails ends with that status too.
  const std::string steps = Submit("FAIL_PROLOG=1 srun -n1 true; echo srun exit $?\n");
  ASSERT_TRUE(WaitForState(steps, "COMPLETED")) << Output(steps);
  EXPECT_NE(Output(steps).find("srun exit 7"), std::string::npos) << Output(steps);
}

TEST_F(TaskScriptsTest, NamedResourceLimitsReachTheTasksAndOthersDoNot) {
  // Submitted with lowered limits: NOFILE and CORE are propagated (this
  // cluster's PropagateResourceLimits), STACK is not: the tasks keep rotad's.
  const std::string job = Submit(
      "echo batch nofile=$(ulimit -n) core=$(ulimit -c) stack=$(ulimit -s)\n"
      "ulimit -S -n 200\n"
      "srun -n1 sh -c 'echo task nofile=$(ulimit -n) core=$(ulimit -c)'\n",
      "ulimit -S -n 321; ulimit -S -c 0; ulimit -S -s 4000;");
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << Output(job);
  const std::string out = Output(job);
  const std::string batch = "batch nofile=321 core=0 stack=";
  const size_t at = out.find(batch);
  ASSERT_NE(at, std::string::npos) << out;
  // The stack is rotad's, not the submitter's.
  EXPECT_NE(out.substr(at + batch.size(), out.find('\n', at) - at - batch.size()), "4000") << out;
  // srun propagates its own: what the batch script set for itself.
  EXPECT_NE(out.find("task nofile=200 core=0\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace rota
