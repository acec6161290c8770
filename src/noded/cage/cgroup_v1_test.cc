// CgroupV1 against a directory tree shaped like /sys/fs/cgroup: what it writes
// where. The real kernel behaviour is covered by tests/integration/noded_*.
#include "noded/cage/cgroup_v1.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

class CgroupV1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids"}) {
      dir_.Write(std::string(c) + "/cgroup.procs", "");
    }
    dir_.Write("cpuset/cpuset.cpus", "0-3\n");
    dir_.Write("cpuset/cpuset.mems", "0\n");
    auto opened = CgroupV1::Open(dir_.path().string(), "n7");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    cgroups_ = std::move(opened).value();
  }

  testing::TempDir dir_;
  std::unique_ptr<CgroupV1> cgroups_;
};

TEST_F(CgroupV1Test, CreatesPerNodeJobDirsAndWritesLimits) {
  ASSERT_TRUE(cgroups_->Create(12).ok());
  const std::string cpuset = cgroups_->JobDir("cpuset", 12);
  EXPECT_EQ(cpuset, dir_.path().string() + "/cpuset/rota/n7/job_12");
  // Every level of a cpuset gets its parent's CPUs and memory nodes.
  EXPECT_EQ(Read(dir_.path().string() + "/cpuset/rota/n7/cpuset.cpus"), "0-3");
  EXPECT_EQ(Read(cpuset + "/cpuset.mems"), "0");

  CageLimits limits;
  limits.cpu_count = 2;
  limits.memory_bytes = 512 << 20;
  limits.denied_devices = std::vector<DeviceRule>{{'c', 195, 200}, {'c', 195, 202}};
  ASSERT_TRUE(cgroups_->SetLimits(12, limits).ok());
  EXPECT_EQ(Read(cpuset + "/cpuset.cpus"), "0-1");
  EXPECT_EQ(Read(cgroups_->JobDir("memory", 12) + "/memory.limit_in_bytes"), "536870912");
  // Everything open (a reused cage may have been shut), then the node's other
  // GPUs shut: each rule is its own write; the fake file keeps the last.
  EXPECT_EQ(Read(cgroups_->JobDir("devices", 12) + "/devices.allow"), "a");
  EXPECT_EQ(Read(cgroups_->JobDir("devices", 12) + "/devices.deny"), "c 195:202 rwm");
}

TEST_F(CgroupV1Test, AUserLevelAboveTheJobThatOtherProcessesFind) {
  ASSERT_TRUE(cgroups_->Create(5, 1000).ok());
  const std::string root = dir_.path().string();
  EXPECT_EQ(cgroups_->JobDir("memory", 5), root + "/memory/rota/n7/uid_1000/job_5");
  EXPECT_EQ(Read(root + "/cpuset/rota/n7/uid_1000/cpuset.cpus"), "0-3");
  EXPECT_EQ(Read(root + "/cpuset/rota/n7/uid_1000/job_5/cpuset.cpus"), "0-3");
  // rotad signalling a job its rota-stepd caged: a backend that did not make
  // the cgroup finds it below the user's level.
  auto other = CgroupV1::Open(root, "n7");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->JobDir("freezer", 5), root + "/freezer/rota/n7/uid_1000/job_5");
  // Jobs made without a user stay directly below the node.
  ASSERT_TRUE(cgroups_->Create(6).ok());
  EXPECT_EQ((*other)->JobDir("pids", 6), root + "/pids/rota/n7/job_6");
  // Both places are listed for the sweep at start.
  std::map<uint32_t, std::string> listed = CgroupJobDirs::List(root + "/pids/rota/n7");
  EXPECT_EQ(listed, (std::map<uint32_t, std::string>{{5, "uid_1000/job_5"}, {6, "job_6"}}));
}

// srun's steps: step_<s> below the job in every hierarchy, with the step's
// CPUs and memory; a bound task's cpuset below it, its other controllers
// left at the step's.
TEST_F(CgroupV1Test, StepCagesInEveryHierarchyAndTaskCpusetsBelow) {
  ASSERT_TRUE(cgroups_->Create(12, 1000).ok());
  CageLimits job;
  job.cpu_count = 3;
  job.cpu_ids = {0, 1, 2};
  ASSERT_TRUE(cgroups_->SetLimits(12, job).ok());
  StepCageLimits step;
  step.cpu_ids = {1, 2};
  step.memory_bytes = 50 << 20;
  step.task_cages = true;
  step.task_cpusets = true;
  ASSERT_TRUE(cgroups_->CreateStep(12, "step_0", step).ok());
  const std::string root = dir_.path().string();
  const std::string place = "/rota/n7/uid_1000/job_12/step_0";
  for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids"}) {
    EXPECT_TRUE(std::filesystem::is_directory(root + "/" + c + place)) << c;
  }
  EXPECT_EQ(Read(root + "/cpuset" + place + "/cpuset.cpus"), "1-2");
  EXPECT_EQ(Read(root + "/cpuset" + place + "/cpuset.mems"), "0");
  EXPECT_EQ(Read(root + "/memory" + place + "/memory.limit_in_bytes"), "52428800");

  TaskCageLimits task;
  task.cpu_ids = {2};
  task.denied_devices = std::vector<DeviceRule>{{'c', 195, 1}};
  ASSERT_TRUE(cgroups_->ConfineTask(12, "step_0", "task_1", 777, task).ok());
  EXPECT_EQ(Read(root + "/cpuset" + place + "/task_1/cpuset.cpus"), "2");
  EXPECT_EQ(Read(root + "/cpuset" + place + "/task_1/cgroup.procs"), "777");
  // The task cage starts with its step's rules and only adds its own denials.
  EXPECT_EQ(Read(root + "/devices" + place + "/task_1/devices.deny"), "c 195:1 rwm");
  EXPECT_FALSE(std::filesystem::exists(root + "/devices" + place + "/task_1/devices.allow"));
  EXPECT_EQ(Read(root + "/memory" + place + "/cgroup.procs"), "777");
  EXPECT_FALSE(std::filesystem::exists(root + "/memory" + place + "/task_1"));

  EXPECT_EQ(cgroups_->StepOomKills(12, "step_0"), 0u);
  dir_.Write("memory" + place + "/memory.oom_control",
             "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
  EXPECT_EQ(cgroups_->StepOomKills(12, "step_0"), 3u);
}

TEST_F(CgroupV1Test, PeakMemoryIsTheMemoryControllersHighWaterMark) {
  ASSERT_TRUE(cgroups_->Create(8).ok());
  EXPECT_EQ(cgroups_->PeakMemoryBytes(8), std::nullopt);
  dir_.Write("memory/rota/n7/job_8/memory.max_usage_in_bytes", "73400320\n");
  EXPECT_EQ(cgroups_->PeakMemoryBytes(8), uint64_t{73400320});
}

// sstat's live figures: memory now and at most, and CPU time from cpuacct
// (the hierarchy is used only where mounted).
TEST_F(CgroupV1Test, LiveFiguresOfTheJobAndItsStepCages) {
  EXPECT_EQ(cgroups_->CpuUsageMicros(9, ""), std::nullopt);  // No cpuacct hierarchy
  dir_.Write("cpuacct/cgroup.procs", "");
  auto opened = CgroupV1::Open(dir_.path().string(), "n8");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  std::unique_ptr<CgroupV1> cgroups = std::move(opened).value();
  ASSERT_TRUE(cgroups->Create(9).ok());
  ASSERT_TRUE(cgroups->CreateStep(9, "step_0", StepCageLimits{}).ok());
  EXPECT_EQ(cgroups->CurrentMemoryBytes(9, ""), std::nullopt);
  EXPECT_EQ(cgroups->CpuUsageMicros(9, "step_0"), std::nullopt);

  const std::string job = "rota/n8/job_9";
  dir_.Write("memory/" + job + "/memory.usage_in_bytes", "1048576\n");
  dir_.Write("memory/" + job + "/memory.max_usage_in_bytes", "2097152\n");
  dir_.Write("memory/" + job + "/step_0/memory.usage_in_bytes", "4096\n");
  dir_.Write("cpuacct/" + job + "/step_0/cpuacct.usage", "3000000000\n");
  dir_.Write("cpuacct/" + job + "/step_0/cpuacct.stat", "user 200\nsystem 100\n");
  EXPECT_EQ(cgroups->CurrentMemoryBytes(9, ""), uint64_t{1048576});
  EXPECT_EQ(cgroups->StepPeakMemoryBytes(9, ""), uint64_t{2097152});
  EXPECT_EQ(cgroups->CurrentMemoryBytes(9, "step_0"), uint64_t{4096});
  EXPECT_EQ(cgroups->StepPeakMemoryBytes(9, "step_0"), std::nullopt);
  // Three seconds, split two to one as the ticks are.
  EXPECT_EQ(cgroups->CpuUsageMicros(9, "step_0"), (CageCpuTime{2'000'000, 1'000'000}));
}

// Without a cpuacct cage, a step's CPU time is its processes' in /proc: this
// test's own process, listed in the step's freezer cgroup, has used some.
TEST_F(CgroupV1Test, WithoutCpuacctTheCpuTimeOfTheCagesProcessesComesFromProc) {
  ASSERT_TRUE(cgroups_->Create(9).ok());
  ASSERT_TRUE(cgroups_->CreateStep(9, "step_0", StepCageLimits{}).ok());
  EXPECT_EQ(cgroups_->CpuUsageMicros(9, "step_0"), std::nullopt);  // Nobody in it yet
  volatile uint64_t spin = 0;
  for (uint64_t i = 0; i < 50'000'000; ++i) spin = spin + i;
  dir_.Write("freezer/rota/n7/job_9/step_0/cgroup.procs", std::to_string(getpid()) + "\n");
  std::optional<CageCpuTime> time = cgroups_->CpuUsageMicros(9, "step_0");
  ASSERT_TRUE(time.has_value());
  EXPECT_GT(time->user_us + time->system_us, 0u);
  // The job's own cage holds its steps' processes too.
  std::optional<CageCpuTime> job = cgroups_->CpuUsageMicros(9, "");
  ASSERT_TRUE(job.has_value());
  EXPECT_GE(job->user_us + job->system_us, time->user_us + time->system_us);
}

TEST_F(CgroupV1Test, MoreCpusThanTheHostHasLeavesTheCpusetAlone) {
  ASSERT_TRUE(cgroups_->Create(3).ok());
  CageLimits limits;
  limits.cpu_count = 16;
  EXPECT_TRUE(cgroups_->SetLimits(3, limits).ok());
  EXPECT_EQ(Read(cgroups_->JobDir("cpuset", 3) + "/cpuset.cpus"), "0-3");
}

// cgroup.conf constrains neither cores nor devices: jobs get no cpuset or
// devices cgroup (nor pids, freezer tracking them), and the sweep at start
// still clears those a rotad configured otherwise left there.
TEST_F(CgroupV1Test, UnneededControllersAreNotMadeButAreSwept) {
  const std::string root = dir_.path().string();
  auto lean = CgroupV1::Open(root, "n8", {"cpuset", "devices", "pids", "freezer"});
  ASSERT_TRUE(lean.ok());
  ASSERT_TRUE((*lean)->Create(3).ok());
  EXPECT_TRUE(std::filesystem::is_directory(root + "/memory/rota/n8/job_3"));
  EXPECT_TRUE(std::filesystem::is_directory(root + "/freezer/rota/n8/job_3"));  // The tracker
  for (const char* c : {"cpuset", "devices", "pids"}) {
    EXPECT_FALSE(std::filesystem::exists(root + "/" + c + "/rota/n8/job_3")) << c;
  }
  std::filesystem::create_directories(root + "/pids/rota/n8/job_9");
  std::filesystem::create_directories(root + "/cpuset/rota/n8/uid_7/job_10");
  EXPECT_EQ((*lean)->SweepStale({3}), 2);
  EXPECT_FALSE(std::filesystem::exists(root + "/pids/rota/n8/job_9"));
  EXPECT_FALSE(std::filesystem::exists(root + "/cpuset/rota/n8/uid_7"));
  EXPECT_TRUE(std::filesystem::is_directory(root + "/memory/rota/n8/job_3"));
}

TEST(DeviceRuleTest, PrintsAndStats) {
  EXPECT_EQ((DeviceRule{'c', 136, -1}).ToString(), "c 136:* rwm");
  auto null_rule = DeviceRuleFor("/dev/null");
  ASSERT_TRUE(null_rule.ok());
  EXPECT_EQ(null_rule->ToString(), "c 1:3 rwm");
  EXPECT_FALSE(DeviceRuleFor("/etc/hostname").ok());
}

}  // namespace
}  // namespace rota::noded
