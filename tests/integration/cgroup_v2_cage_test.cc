// The cgroup v2 cage against the real kernel: the cgroup2 hierarchy found in
// /proc/self/mounts (on a hybrid host the one at /sys/fs/cgroup/unified), a
// BPF device program that keeps a job from the GPUs it was not given (EPERM)
// and from nothing else: its own fake GPU, a fake nvidiactl, a fake uvm and a
// fake uverbs device open with ENXIO (no driver), /dev/fuse opens; limits
// written or clearly refused, and the final
// kill reaching a daemonised grandchild. Needs root.
//
// Cages live under rota/cg2t<pid>/, and the fixture removes that subtree,
// killing what is left in it, however a test ends.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "common/strings.h"
#include "noded/cage/bpf_device_filter.h"
#include "noded/cage/cgroup_v1.h"
#include "noded/cage/cgroup_v2.h"
#include "tests/integration/noded_harness.h"

namespace rota {
namespace {

namespace fs = std::filesystem;
using noded::CageLimits;
using noded::CgroupV2;
using noded::DeviceRule;
using testing::ProcessAlive;
using testing::ReadFileText;
using testing::WaitUntil;

// Kills every process under `dir` and removes its cgroups, deepest first.
void RemoveCgroupTree(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  std::ofstream(dir / "cgroup.kill") << "1";
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) RemoveCgroupTree(e.path());
  }
  WaitUntil([&] { return ReadFileText((dir / "cgroup.procs").string()).empty(); },
            std::chrono::seconds(5));
  for (int i = 0; i < 100 && rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// A child process that waits until the parent placed it in a cage, then runs
// `body` and exits with what it returns.
class CagedChild {
 public:
  template <typename Body>
  explicit CagedChild(Body body) {
    if (pipe(go_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(go_[1]);
      char c;
      if (read(go_[0], &c, 1) != 1) _exit(120);
      _exit(body());
    }
    close(go_[0]);
  }
  ~CagedChild() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    close(go_[1]);
  }
  pid_t pid() const { return pid_; }
  void Go() { (void)!write(go_[1], "g", 1); }
  // The wait status.
  int Wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return status;
  }

 private:
  int go_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool reaped_ = false;
};

class CgroupV2CageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests need root (cgroups, bpf, mknod)";
    std::optional<std::string> mount =
        noded::FindCgroup2Mount(ReadFileText("/proc/self/mounts"), "/sys/fs/cgroup");
    ASSERT_TRUE(mount.has_value()) << "no cgroup2 file system is mounted";
    mount_ = *mount;
    node_ = "cg2t" + std::to_string(getpid());
    auto opened = CgroupV2::Open(mount_, node_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    cgroups_ = std::move(opened).value();
  }
  void TearDown() override {
    RemoveCgroupTree(fs::path(mount_) / "rota" / node_);
    EXPECT_FALSE(fs::exists(fs::path(mount_) / "rota" / node_));
  }

  std::string MakeGpu(unsigned minor) {
    return MakeDevice("nvidia" + std::to_string(minor), 195, minor);
  }
  std::string MakeDevice(const std::string& name, unsigned major, unsigned minor) {
    std::string path = (dir_.path() / name).string();
    EXPECT_EQ(mknod(path.c_str(), S_IFCHR | 0666, makedev(major, minor)), 0) << path;
    return path;
  }

  testing::TempDir dir_;
  std::string mount_;
  std::string node_;
  std::unique_ptr<CgroupV2> cgroups_;
};

// The errno of opening `path` (0: it opened).
int OpenErrno(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno;
}

// The rule for the device file `path`.
DeviceRule RuleOf(const std::string& path) {
  auto rule = noded::DeviceRuleFor(path);
  EXPECT_TRUE(rule.ok()) << path;
  return rule.value_or(DeviceRule{});
}

// Whether opening a device from inside a cage was allowed by the cage: it
// opened, or the missing driver answered (ENXIO, ENODEV); EPERM is the cage.
bool CageAllowed(int err) { return err == 0 || err == ENXIO || err == ENODEV; }

TEST_F(CgroupV2CageTest, DeviceProgramDeniesOnlyTheGpusNotGiven) {
  const std::string mine = MakeGpu(250);
  const std::string other = MakeGpu(251);
  const std::string ctl = MakeDevice("nvidiactl", 195, 255);
  const std::string uvm = MakeDevice("nvidia-uvm", testing::UnusedCharMajor(), 0);
  const std::string uverbs = MakeDevice("uverbs0", 231, 192);
  ASSERT_TRUE(cgroups_->Create(1).ok());
  CageLimits limits;
  limits.denied_devices = std::vector<DeviceRule>{RuleOf(other)};
  Status set = cgroups_->SetLimits(1, limits);
  if (!cgroups_->device_control().ok()) {
    // The kernel refuses device programs: the job must not start, and the
    // error says why (the errno bpf(2) gave).
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(set.message().find("ConstrainDevices: bpf(BPF_PROG_LOAD)"), std::string::npos)
        << set.message();
    return;
  }
  ASSERT_TRUE(set.ok()) << set.message();
  // Outside the cage every device opens as usual.
  EXPECT_EQ(OpenErrno(other), ENXIO);

  // Exit code: one bit per expectation that failed.
  CagedChild child([&] {
    int failed = 0;
    if (OpenErrno("/dev/null") != 0) failed |= 1;
    if (!CageAllowed(OpenErrno(ctl)) || !CageAllowed(OpenErrno(uvm)) ||
        !CageAllowed(OpenErrno(uverbs)) || !CageAllowed(OpenErrno("/dev/fuse"))) {
      failed |= 2;
    }
    if (OpenErrno(mine) != ENXIO) failed |= 4;
    if (OpenErrno(other) != EPERM) failed |= 8;
    // mknod of a forbidden device is refused as well; of another, not.
    std::string made = mine + ".copy";
    if (mknod(made.c_str(), S_IFCHR | 0666, makedev(195, 251)) == 0 || errno != EPERM) {
      failed |= 16;
    }
    if (mknod(made.c_str(), S_IFCHR | 0666, makedev(195, 250)) != 0) failed |= 32;
    return failed;
  });
  ASSERT_GT(child.pid(), 0);
  ASSERT_TRUE(cgroups_->AddPid(1, child.pid()).ok());
  EXPECT_NE(ReadFileText("/proc/" + std::to_string(child.pid()) + "/cgroup")
                .find("0::/rota/" + node_ + "/job_1/step_batch\n"),
            std::string::npos);
  child.Go();
  int status = child.Wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "failed checks (bits: null, driver files, mine, other, mknod other, mknod mine)";
  EXPECT_TRUE(cgroups_->KillAll(1).ok());
  EXPECT_TRUE(cgroups_->Remove(1).ok());
  EXPECT_FALSE(fs::exists(cgroups_->JobDir(1)));
}

// srun's per-task cages: a task below the job may open only its own GPU of
// the two the job holds; the job's program still runs below (the node's third
// GPU stays shut) and the driver's files stay open.
TEST_F(CgroupV2CageTest, TaskCageNarrowsTheJobsDevices) {
  const std::string mine = MakeGpu(250);
  const std::string sibling = MakeGpu(251);
  const std::string foreign = MakeGpu(252);
  const std::string ctl = MakeDevice("nvidiactl", 195, 255);
  ASSERT_TRUE(cgroups_->Create(4).ok());
  noded::StepCageLimits step;
  step.task_cages = true;
  ASSERT_TRUE(cgroups_->CreateStep(4, "step_0", step).ok());
  if (!cgroups_->device_control().ok()) {
    // The kernel refuses device programs: no task starts unconfined.
    noded::TaskCageLimits any;
    any.denied_devices = std::vector<DeviceRule>{};
    Status refused = cgroups_->ConfineTask(4, "step_0", "task_0", getpid(), any);
    EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition) << refused.message();
    return;
  }
  CageLimits limits;
  limits.denied_devices = std::vector<DeviceRule>{RuleOf(foreign)};
  ASSERT_TRUE(cgroups_->SetLimits(4, limits).ok());
  CagedChild child([&] {
    int failed = 0;
    if (OpenErrno("/dev/null") != 0) failed |= 1;
    if (OpenErrno(mine) != ENXIO) failed |= 2;
    if (OpenErrno(sibling) != EPERM) failed |= 4;
    if (OpenErrno(foreign) != EPERM) failed |= 8;
    if (OpenErrno(ctl) != ENXIO) failed |= 16;
    return failed;
  });
  ASSERT_GT(child.pid(), 0);
  noded::TaskCageLimits task_limits;
  task_limits.denied_devices = std::vector<DeviceRule>{RuleOf(sibling)};
  Status confined = cgroups_->ConfineTask(4, "step_0", "task_0", child.pid(), task_limits);
  ASSERT_TRUE(confined.ok()) << confined.message();
  EXPECT_NE(ReadFileText("/proc/" + std::to_string(child.pid()) + "/cgroup")
                .find("0::/rota/" + node_ + "/job_4/step_0/task_0\n"),
            std::string::npos);
  child.Go();
  int status = child.Wait();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed checks (bits: null, mine, sibling, foreign, ctl)";
  EXPECT_TRUE(cgroups_->RemoveStep(4, "step_0").ok());
  EXPECT_FALSE(fs::exists(cgroups_->JobDir(4) + "/step_0"));
  EXPECT_TRUE(cgroups_->Remove(4).ok());
}

TEST_F(CgroupV2CageTest, KernelLoadsTheFilterProgram) {
  Status probe = noded::ProbeDeviceFilterSupport();
  EXPECT_EQ(probe.ok(), cgroups_->device_control().ok());
  if (!probe.ok()) {
    // Say exactly what the kernel answered.
    EXPECT_NE(probe.message().find("bpf(BPF_PROG_LOAD)"), std::string::npos);
    std::cerr << "device programs refused here: " << probe.message() << "\n";
    return;
  }
  // A program the verifier refuses (it never exits): the error quotes the verifier.
  std::vector<bpf_insn> broken = noded::BuildDeviceDenyFilter({});
  broken.pop_back();
  auto refused = noded::LoadDeviceFilter(broken);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("Invalid argument (EINVAL); verifier: "),
            std::string::npos)
      << refused.status().message();
  // Many rules (64 GPUs and 64 MIG capabilities) load.
  std::vector<DeviceRule> many;
  for (int minor = 0; minor < 64; ++minor) many.push_back({'c', 195, minor});
  for (int minor = 0; minor < 64; ++minor) many.push_back({'c', 511, minor});
  auto fd = noded::LoadDeviceFilter(noded::BuildDeviceDenyFilter(many));
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  close(*fd);
}

// Memory and cores: written when the hierarchy has the controller, else the
// job is refused with an error naming the setting (a hybrid host).
TEST_F(CgroupV2CageTest, LimitsAreWrittenOrClearlyRefused) {
  ASSERT_TRUE(cgroups_->Create(2).ok());
  CageLimits memory;
  memory.memory_bytes = 64 << 20;
  Status s = cgroups_->SetLimits(2, memory);
  if (cgroups_->Has("memory")) {
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(Trim(ReadFileText(cgroups_->JobDir(2) + "/memory.max")), "67108864");
    EXPECT_EQ(cgroups_->OomKills(2), 0u);
  } else {
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.message().find("ConstrainRAMSpace: the cgroup v2 hierarchy at " + mount_ +
                               " has no memory controller"),
              std::string::npos)
        << s.message();
    EXPECT_FALSE(fs::exists(cgroups_->JobDir(2) + "/memory.max"));
  }
  CageLimits cores;
  cores.cpu_count = 1;
  cores.cpu_ids = {0};
  s = cgroups_->SetLimits(2, cores);
  if (cgroups_->Has("cpuset")) {
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_FALSE(Trim(ReadFileText(cgroups_->JobDir(2) + "/cpuset.cpus")).empty());
  } else {
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.message().find("ConstrainCores"), std::string::npos) << s.message();
  }
}

TEST_F(CgroupV2CageTest, KillAllReachesADaemonisedGrandchild) {
  ASSERT_TRUE(cgroups_->Create(3).ok());
  const std::string pid_file = (dir_.path() / "grandchild.pid").string();
  const std::string script = "setsid sleep 1000 </dev/null >/dev/null 2>&1 &\necho $! > " +
                             pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file +
                             "\nexec sleep 1000\n";
  CagedChild child([&] {
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    return 127;
  });
  ASSERT_GT(child.pid(), 0);
  ASSERT_TRUE(cgroups_->AddPid(3, child.pid()).ok());
  child.Go();
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(pid_file); }));
  std::optional<int64_t> grandchild = ParseInt(Trim(ReadFileText(pid_file)));
  ASSERT_TRUE(grandchild.has_value());
  // It left the session, and stays in the cage.
  EXPECT_NE(ReadFileText("/proc/" + std::to_string(*grandchild) + "/cgroup")
                .find("0::/rota/" + node_ + "/job_3/step_batch\n"),
            std::string::npos);
  ASSERT_TRUE(WaitUntil(
      [&] { return ReadFileText("/proc/" + std::to_string(child.pid()) + "/comm") == "sleep\n"; }));
  // Signal reaches both.
  ASSERT_TRUE(cgroups_->Signal(3, SIGSTOP).ok());
  EXPECT_TRUE(WaitUntil([&] {
    std::string stat = ReadFileText("/proc/" + std::to_string(*grandchild) + "/stat");
    return stat.find(") T ") != std::string::npos;
  }));
  ASSERT_TRUE(cgroups_->KillAll(3).ok());
  int status = child.Wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_TRUE(WaitUntil([&] { return !ProcessAlive(static_cast<pid_t>(*grandchild)); },
                        std::chrono::seconds(5)));
  EXPECT_EQ(ReadFileText(cgroups_->StepDir(3) + "/cgroup.procs"), "");
  ASSERT_TRUE(cgroups_->Remove(3).ok());
  EXPECT_FALSE(fs::exists(cgroups_->JobDir(3)));
}

TEST_F(CgroupV2CageTest, StaleCagesAreSweptAndARecreatedCageIsFresh) {
  // As if a crash had left jobs 7 (with a process) and 8 behind.
  for (uint32_t id : {7u, 8u}) {
    ASSERT_TRUE(cgroups_->Create(id).ok());
  }
  CagedChild orphan([] {
    pause();
    return 0;
  });
  ASSERT_GT(orphan.pid(), 0);
  ASSERT_TRUE(cgroups_->AddPid(7, orphan.pid()).ok());
  // A device program that forbids /dev/null, left on job 8.
  CageLimits none;
  none.denied_devices = std::vector<DeviceRule>{{'c', 1, 3}};
  if (cgroups_->device_control().ok()) {
    ASSERT_TRUE(cgroups_->SetLimits(8, none).ok());
  }
  // Job 8 starts again: its new cage must not carry the old program.
  ASSERT_TRUE(cgroups_->Create(8).ok());
  CagedChild reader([] { return OpenErrno("/dev/null"); });
  ASSERT_TRUE(cgroups_->AddPid(8, reader.pid()).ok());
  reader.Go();
  int status = reader.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  EXPECT_EQ(cgroups_->SweepStale({8}), 1);
  status = orphan.Wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_FALSE(fs::exists(cgroups_->JobDir(7)));
  EXPECT_TRUE(fs::exists(cgroups_->JobDir(8)));
}

// What a job's cage costs rotad: make it, set its device filter (8 GPUs),
// kill and remove it, with no process in it. Printed beside cgroup v1's for
// the same work; bounded loosely so that a loaded host does not fail it.
TEST_F(CgroupV2CageTest, CageSetUpAndTearDownTime) {
  // One GPU of eight held: the other seven denied.
  std::vector<DeviceRule> denied;
  for (int minor = 1; minor < 8; ++minor) denied.push_back({'c', 195, minor});
  CageLimits limits;
  limits.denied_devices = denied;
  auto v1 = noded::CgroupV1::Open("/sys/fs/cgroup", node_);
  constexpr int kCycles = 50;
  auto cycle = [&](noded::CgroupBackend& cage) {
    auto start = std::chrono::steady_clock::now();
    for (uint32_t id = 100; id < 100 + kCycles; ++id) {
      EXPECT_TRUE(cage.Create(id).ok());
      EXPECT_TRUE(cage.SetLimits(id, limits).ok());
      EXPECT_TRUE(cage.KillAll(id).ok());
      EXPECT_TRUE(cage.Remove(id).ok());
    }
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
               .count() /
           kCycles;
  };
  if (!cgroups_->device_control().ok()) limits.denied_devices.reset();
  const double v2_us = cycle(*cgroups_);
  std::cerr << "cgroup v2 cage, create + device filter + kill + remove: " << v2_us << " us\n";
  EXPECT_LT(v2_us, 100'000.0);
  if (v1.ok()) {
    const double v1_us = cycle(**v1);
    std::cerr << "cgroup v1 cage, the same: " << v1_us << " us\n";
    for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids", "cpuacct"}) {
      rmdir((std::string("/sys/fs/cgroup/") + c + "/rota/" + node_).c_str());
    }
  }
}

// What a step's cage adds to a step launch: make step_<s> with the step's CPUs
// (and memory where the hierarchy has the controller), a process placed in
// it, or in a task cage of its own CPUs, and the step removed once the
// process is gone. Printed for cgroup v2 and v1; bounded loosely.
TEST_F(CgroupV2CageTest, StepCageSetUpAndTearDownTime) {
  auto v1 = noded::CgroupV1::Open("/sys/fs/cgroup", node_);
  constexpr int kCycles = 30;
  auto cycle = [&](noded::CgroupBackend& cage, bool task_cage) {
    EXPECT_TRUE(cage.Create(7).ok());
    double total_us = 0;
    for (int s = 0; s < kCycles; ++s) {
      CagedChild child([] { return 0; });
      const std::string step = "step_" + std::to_string(s);
      noded::StepCageLimits limits;
      limits.task_cages = task_cage;
      limits.task_cpusets = task_cage;
      auto start = std::chrono::steady_clock::now();
      Status made = cage.CreateStep(7, step, limits);
      EXPECT_TRUE(made.ok()) << made.message();
      if (task_cage) {
        noded::TaskCageLimits task;
        task.cpu_ids = {0};
        Status placed = cage.ConfineTask(7, step, "task_0", child.pid(), task);
        EXPECT_TRUE(placed.ok()) << placed.message();
      } else {
        EXPECT_TRUE(cage.AddStepPid(7, step, child.pid()).ok());
      }
      total_us +=
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count();
      child.Go();
      child.Wait();
      start = std::chrono::steady_clock::now();
      EXPECT_TRUE(cage.RemoveStep(7, step).ok());
      total_us +=
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count();
    }
    EXPECT_TRUE(cage.KillAll(7).ok());
    EXPECT_TRUE(cage.Remove(7).ok());
    return total_us / kCycles;
  };
  const bool v2_cpuset = cgroups_->Has("cpuset");
  const double v2_us = cycle(*cgroups_, v2_cpuset);
  std::cerr << "cgroup v2 step cage, create + place a process"
            << (v2_cpuset ? " in a task cpuset" : "") << " + remove: " << v2_us << " us\n";
  EXPECT_LT(v2_us, 100'000.0);
  if (v1.ok()) {
    const double v1_step_us = cycle(**v1, false);
    const double v1_task_us = cycle(**v1, true);
    std::cerr << "cgroup v1 step cage, create + place a process + remove: " << v1_step_us
              << " us; with a task cpuset: " << v1_task_us << " us\n";
    EXPECT_LT(v1_task_us, 100'000.0);
    for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids", "cpuacct"}) {
      rmdir((std::string("/sys/fs/cgroup/") + c + "/rota/" + node_).c_str());
    }
  }
}

}  // namespace
}  // namespace rota
