// The submitter's umask (SLURM_UMASK) reaches the job: its output files and
// every file it makes.
#include "noded/stepd/job_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "noded/stepd/task_process.h"
#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

TEST(JobProcessTest, UmaskFromEnvironment) {
  EXPECT_EQ(UmaskFromEnvironment({}), 022u);
  EXPECT_EQ(UmaskFromEnvironment({"HOME=/x", "SLURM_UMASK=0077"}), 077u);
  EXPECT_EQ(UmaskFromEnvironment({"SLURM_UMASK=0002"}), 02u);
  EXPECT_EQ(UmaskFromEnvironment({"SLURM_UMASK=27"}), 027u);
  EXPECT_EQ(UmaskFromEnvironment({"SLURM_UMASK=0777"}), 0777u);
  for (const char* bad : {"SLURM_UMASK=", "SLURM_UMASK=0089", "SLURM_UMASK=abc",
                          "SLURM_UMASK=000077", "SLURM_UMASK= 077"}) {
    EXPECT_EQ(UmaskFromEnvironment({bad}), 022u) << bad;
  }
}

TEST(JobProcessTest, TheJobAndItsOutputGetTheSubmittersUmask) {
  testing::TempDir dir;
  JobProcessSpec spec;
  spec.program = "/bin/sh";
  spec.argv = {"/bin/sh", "-c", "echo out; touch made"};
  spec.uid = geteuid();
  spec.gid = getegid();
  spec.groups = {getegid()};
  spec.work_dir = dir.path().string();
  spec.stdout_path = (dir.path() / "slurm-1.out").string();
  spec.stderr_path = (dir.path() / "slurm-1.err").string();
  spec.env = {"PATH=/usr/bin:/bin", "SLURM_UMASK=0077"};
  spec.umask = UmaskFromEnvironment(spec.env);
  Result<pid_t> pid = SpawnJobProcess(spec, [](pid_t) { return Status::Ok(); });
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(ModeOf(spec.stdout_path), 0600u);
  EXPECT_EQ(ModeOf(spec.stderr_path), 0600u);
  EXPECT_EQ(ModeOf((dir.path() / "made").string()), 0600u);
}

TEST(JobProcessTest, AStepTaskAndItsOutputGetTheSubmittersUmask) {
  testing::TempDir dir;
  TaskProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo out; touch made"};
  spec.env = {"PATH=/usr/bin:/bin", "SLURM_UMASK=0027"};
  spec.uid = geteuid();
  spec.gid = getegid();
  spec.groups = {getegid()};
  spec.work_dir = dir.path().string();
  spec.stdout_path = (dir.path() / "task.out").string();
  spec.stderr_path = spec.stdout_path;
  spec.umask = UmaskFromEnvironment(spec.env);
  Result<TaskProcess> task = SpawnTaskProcess(spec, [](pid_t) { return Status::Ok(); });
  ASSERT_TRUE(task.ok()) << task.status().message();
  int status = 0;
  ASSERT_EQ(waitpid(task->pid, &status, 0), task->pid);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(ModeOf(spec.stdout_path), 0640u);
  EXPECT_EQ(ModeOf((dir.path() / "made").string()), 0640u);
}

}  // namespace
}  // namespace rota::noded
