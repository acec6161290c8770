// CgroupV2 against a plain directory tree shaped like a cgroup2 mount: what
// it writes where, and how it degrades without controllers. The real kernel
// (BPF device programs, cgroup.kill) is covered by
// tests/integration/cgroup_v2_cage_test.cc.
#include "noded/cage/cgroup_v2.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

constexpr const char* kHybridMounts =
    "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
    "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
    "cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0\n"
    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";

TEST(FindCgroup2MountTest, FindsTheUnifiedHierarchy) {
  EXPECT_EQ(FindCgroup2Mount(kHybridMounts, "/sys/fs/cgroup"), "/sys/fs/cgroup/unified");
  EXPECT_EQ(FindCgroup2Mount("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n", "/sys/fs/cgroup"),
            "/sys/fs/cgroup");
  EXPECT_EQ(FindCgroup2Mount("proc /proc proc rw 0 0\n", "/sys/fs/cgroup"), std::nullopt);
  // One at or under CgroupMountpoint wins over an earlier one elsewhere.
  EXPECT_EQ(FindCgroup2Mount("none /mnt/cg2 cgroup2 rw 0 0\n"
                             "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n",
                             "/sys/fs/cgroup"),
            "/sys/fs/cgroup");
  EXPECT_EQ(FindCgroup2Mount("none /mnt/cg2 cgroup2 rw 0 0\n", "/sys/fs/cgroup"), "/mnt/cg2");
  // A look-alike prefix is not "under".
  EXPECT_EQ(FindCgroup2Mount("none /other cgroup2 rw 0 0\nnone /sys/fs/cgroupX cgroup2 rw 0 0\n",
                             "/sys/fs/cgroup"),
            "/other");
  EXPECT_EQ(FindCgroup2Mount("none /mnt/my\\040cg cgroup2 rw 0 0\n", "/x"), "/mnt/my cg");
}

class CgroupV2Test : public ::testing::Test {
 protected:
  std::unique_ptr<CgroupV2> Open(const std::string& controllers) {
    dir_.Write("cgroup.controllers", controllers + "\n");
    dir_.Write("cgroup.subtree_control", "");
    dir_.Write("cgroup.procs", "");
    dir_.Write("cpuset.cpus.effective", "0-3\n");
    auto opened = CgroupV2::Open(dir_.path().string(), "n7");
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  testing::TempDir dir_;
};

TEST_F(CgroupV2Test, RefusesADirectoryThatIsNotACgroup2Hierarchy) {
  auto opened = CgroupV2::Open(dir_.path().string(), "n7");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(opened.status().message().find("not a cgroup v2 hierarchy"), std::string::npos);
}

TEST_F(CgroupV2Test, EnablesControllersDownToTheJobAndWritesLimits) {
  auto cgroups = Open("cpuset cpu io memory hugetlb pids");
  ASSERT_NE(cgroups, nullptr);
  EXPECT_TRUE(cgroups->Has("memory") && cgroups->Has("cpuset") && cgroups->Has("pids"));
  // Open enables them one by one down to the node (a plain file keeps the
  // last write only), Create all at once in the job.
  const std::string root = dir_.path().string();
  for (const std::string& dir : {root, root + "/rota", root + "/rota/n7"}) {
    EXPECT_EQ(Read(dir + "/cgroup.subtree_control"), "+pids") << dir;
  }
  ASSERT_TRUE(cgroups->Create(12).ok());
  EXPECT_EQ(cgroups->JobDir(12), root + "/rota/n7/job_12");
  EXPECT_EQ(cgroups->StepDir(12), root + "/rota/n7/job_12/step_batch");
  EXPECT_TRUE(std::filesystem::is_directory(cgroups->StepDir(12)));
  EXPECT_EQ(Read(cgroups->JobDir(12) + "/cgroup.subtree_control"), "+cpuset +memory +pids");

  CageLimits limits;
  limits.cpu_count = 2;
  limits.cpu_ids = {1, 3};
  limits.memory_bytes = 512 << 20;
  ASSERT_TRUE(cgroups->SetLimits(12, limits).ok());
  EXPECT_EQ(Read(cgroups->JobDir(12) + "/cpuset.cpus"), "1,3");
  EXPECT_EQ(Read(cgroups->JobDir(12) + "/memory.max"), "536870912");

  EXPECT_EQ(cgroups->OomKills(12), 0u);
  dir_.Write("rota/n7/job_12/memory.events",
             "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n");
  EXPECT_EQ(cgroups->OomKills(12), 2u);

  // memory.peak: Linux 5.19 and later only.
  EXPECT_EQ(cgroups->PeakMemoryBytes(12), std::nullopt);
  dir_.Write("rota/n7/job_12/memory.peak", "52428800\n");
  EXPECT_EQ(cgroups->PeakMemoryBytes(12), uint64_t{52428800});

  ASSERT_TRUE(cgroups->AddPid(12, 4242).ok());
  EXPECT_EQ(Read(cgroups->StepDir(12) + "/cgroup.procs"), "4242");
}

// sstat's live figures: the batch step is the step_batch leaf, srun's steps
// their own cages; CPU time needs no controller, memory does.
TEST_F(CgroupV2Test, LiveFiguresOfTheBatchLeafAndStepCages) {
  auto cgroups = Open("memory pids");
  ASSERT_NE(cgroups, nullptr);
  ASSERT_TRUE(cgroups->Create(12).ok());
  ASSERT_TRUE(cgroups->CreateStep(12, "step_3", StepCageLimits{}).ok());
  EXPECT_EQ(cgroups->CurrentMemoryBytes(12, ""), std::nullopt);
  EXPECT_EQ(cgroups->CpuUsageMicros(12, ""), std::nullopt);
  dir_.Write("rota/n7/job_12/step_batch/memory.current", "8192\n");
  dir_.Write("rota/n7/job_12/step_batch/cpu.stat",
             "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
  dir_.Write("rota/n7/job_12/step_3/memory.current", "4096\n");
  dir_.Write("rota/n7/job_12/step_3/memory.peak", "16384\n");
  EXPECT_EQ(cgroups->CurrentMemoryBytes(12, ""), uint64_t{8192});
  EXPECT_EQ(cgroups->StepPeakMemoryBytes(12, ""), std::nullopt);  // Before Linux 5.19
  EXPECT_EQ(cgroups->CpuUsageMicros(12, ""), (CageCpuTime{1000, 500}));
  EXPECT_EQ(cgroups->CurrentMemoryBytes(12, "step_3"), uint64_t{4096});
  EXPECT_EQ(cgroups->StepPeakMemoryBytes(12, "step_3"), uint64_t{16384});

  auto without_memory = Open("pids");
  ASSERT_NE(without_memory, nullptr);
  EXPECT_EQ(without_memory->CurrentMemoryBytes(12, "step_3"), std::nullopt);
}

// srun's steps: step_<s> beside step_batch with the step's CPUs and memory;
// task leaves below it with their own CPUs when tasks are bound.
TEST_F(CgroupV2Test, StepCagesHoldTheStepsLimitsAndTaskCagesTheirCpus) {
  auto cgroups = Open("cpuset memory pids");
  ASSERT_NE(cgroups, nullptr);
  ASSERT_TRUE(cgroups->Create(12, 1000).ok());
  StepCageLimits plain;
  plain.cpu_ids = {1, 2};
  plain.memory_bytes = 64 << 20;
  ASSERT_TRUE(cgroups->CreateStep(12, "step_0", plain).ok());
  const std::string step = dir_.path().string() + "/rota/n7/uid_1000/job_12/step_0";
  EXPECT_EQ(Read(step + "/cpuset.cpus"), "1-2");
  EXPECT_EQ(Read(step + "/memory.max"), "67108864");
  EXPECT_FALSE(std::filesystem::exists(step + "/cgroup.subtree_control"));
  ASSERT_TRUE(cgroups->AddStepPid(12, "step_0", 4242).ok());
  EXPECT_EQ(Read(step + "/cgroup.procs"), "4242");
  EXPECT_EQ(cgroups->StepOomKills(12, "step_0"), 0u);
  dir_.Write("rota/n7/uid_1000/job_12/step_0/memory.events", "oom 1\noom_kill 1\n");
  EXPECT_EQ(cgroups->StepOomKills(12, "step_0"), 1u);

  StepCageLimits bound;
  bound.task_cages = true;
  bound.task_cpusets = true;
  ASSERT_TRUE(cgroups->CreateStep(12, "step_1", bound).ok());
  const std::string step1 = dir_.path().string() + "/rota/n7/uid_1000/job_12/step_1";
  EXPECT_EQ(Read(step1 + "/cgroup.subtree_control"), "+cpuset");
  TaskCageLimits task;
  task.cpu_ids = {3};
  ASSERT_TRUE(cgroups->ConfineTask(12, "step_1", "task_5", 4343, task).ok());
  EXPECT_EQ(Read(step1 + "/task_5/cpuset.cpus"), "3");
  EXPECT_EQ(Read(step1 + "/task_5/cgroup.procs"), "4343");
  EXPECT_FALSE(std::filesystem::exists(step1 + "/cgroup.procs"));
}

TEST_F(CgroupV2Test, StepLimitsNeedTheirControllers) {
  auto cgroups = Open("pids");
  ASSERT_NE(cgroups, nullptr);
  ASSERT_TRUE(cgroups->Create(3).ok());
  StepCageLimits memory;
  memory.memory_bytes = 1 << 20;
  Status s = cgroups->CreateStep(3, "step_0", memory);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("ConstrainRAMSpace"), std::string::npos) << s.message();
  StepCageLimits cores;
  cores.cpu_ids = {0};
  s = cgroups->CreateStep(3, "step_1", cores);
  EXPECT_NE(s.message().find("ConstrainCores"), std::string::npos) << s.message();
}

TEST_F(CgroupV2Test, AlreadyEnabledControllersAreNotWrittenAgain) {
  dir_.Write("rota/n7/cgroup.subtree_control", "cpuset memory pids\n");
  auto cgroups = Open("cpuset memory pids");
  ASSERT_NE(cgroups, nullptr);
  EXPECT_EQ(Read(dir_.path().string() + "/rota/n7/cgroup.subtree_control"), "cpuset memory pids\n");
  dir_.Write("cgroup.subtree_control", "cpuset memory\n");
  ASSERT_TRUE(cgroups->Create(3).ok());
  EXPECT_EQ(Read(dir_.path().string() + "/cgroup.subtree_control"), "cpuset memory\n");
}

// A controller the kernel will not enable (here: the file cannot be written)
// is dropped with a warning; the others stay.
TEST_F(CgroupV2Test, AControllerThatCannotBeEnabledIsDropped) {
  std::filesystem::create_directories(dir_.path() / "rota" / "n7" / "cgroup.subtree_control");
  auto cgroups = Open("cpuset memory");
  ASSERT_NE(cgroups, nullptr);
  EXPECT_FALSE(cgroups->Has("memory"));
  EXPECT_FALSE(cgroups->Has("cpuset"));
  ASSERT_TRUE(cgroups->Create(4).ok());
  CageLimits memory;
  memory.memory_bytes = 64 << 20;
  EXPECT_EQ(cgroups->SetLimits(4, memory).code(), StatusCode::kFailedPrecondition);
}

// A hybrid host: memory, cpuset and pids belong to cgroup v1. Jobs that ask
// for those limits fail to start with an error naming them, as on v1 without
// the controller; nothing else is refused.
TEST_F(CgroupV2Test, MissingControllersFailTheLimitsThatNeedThem) {
  auto cgroups = Open("hugetlb");
  ASSERT_NE(cgroups, nullptr);
  EXPECT_FALSE(cgroups->Has("memory"));
  ASSERT_TRUE(cgroups->Create(5).ok());
  EXPECT_EQ(Read(dir_.path().string() + "/cgroup.subtree_control"), "");

  CageLimits memory;
  memory.memory_bytes = 64 << 20;
  Status s = cgroups->SetLimits(5, memory);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("ConstrainRAMSpace"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("no memory controller"), std::string::npos) << s.message();

  CageLimits cores;
  cores.cpu_count = 1;
  s = cgroups->SetLimits(5, cores);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("ConstrainCores"), std::string::npos) << s.message();

  EXPECT_TRUE(cgroups->SetLimits(5, CageLimits{}).ok());
  EXPECT_EQ(cgroups->OomKills(5), 0u);
  EXPECT_EQ(cgroups->PeakMemoryBytes(5), std::nullopt);
}

}  // namespace
}  // namespace rota::noded
