// rotad with CgroupPlugin=cgroup/v2, started for real as root with fake GPUs:
// jobs run in <cgroup2 mount>/rota/<node>/uid_<uid>/job_<id>/step_batch, a BPF device
// program keeps them from the GPUs they were not given (and from nothing else), limits the
// hierarchy cannot enforce stop the job with a clear error, and nothing outlives the job.
#include <gtest/gtest.h>

#include "common/strings.h"
#include "noded/cage/bpf_device_filter.h"
#include "noded/cage/cgroup_v2.h"
#include "tests/integration/direct_launch.h"
#include "tests/integration/noded_harness.h"

namespace rota {
namespace {

namespace fs = std::filesystem;
using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;

class NodedCgroupV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests need root (cgroups, bpf, mknod)";
    std::optional<std::string> mount =
        noded::FindCgroup2Mount(ReadFileText("/proc/self/mounts"), "/sys/fs/cgroup");
    ASSERT_TRUE(mount.has_value()) << "no cgroup2 file system is mounted";
    mount_ = *mount;
    offered_ = ReadFileText(mount_ + "/cgroup.controllers");
    ASSERT_NE(fake_.port(), 0);
    cluster_ = std::make_unique<NodedCluster>(fake_.port());
    launch_ = std::make_unique<testing::DirectLaunch>(*cluster_);
    ASSERT_TRUE(launch_->status().ok()) << launch_->status().message();
  }
  void TearDown() override {
    if (HasFailure() && cluster_) std::cerr << "rotad log:\n" << cluster_->NodeLogs();
    if (cluster_) {
      const std::string node = cluster_->Node(1);
      cluster_.reset();  // rotad stops first
      RemoveTree(fs::path(mount_) / "rota" / node);
      EXPECT_FALSE(fs::exists(fs::path(mount_) / "rota" / node));
    }
  }

  // Whatever a failed test left: kill the processes, remove the cgroups.
  static void RemoveTree(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return;
    std::ofstream(dir / "cgroup.kill") << "1";
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (e.is_directory(ec)) RemoveTree(e.path());
    }
    WaitUntil([&] { return ReadFileText((dir / "cgroup.procs").string()).empty(); },
              std::chrono::seconds(5));
    rmdir(dir.c_str());
  }

  bool StartNode(const std::string& cgroup_conf) {
    cluster_->dir().Write("cgroup.conf", "CgroupPlugin=cgroup/v2\n" + cgroup_conf);
    return cluster_->StartNode(1);
  }

  bool Offers(const std::string& controller) const {
    for (std::string_view c : Split(Trim(offered_), ' ')) {
      if (c == controller) return true;
    }
    return false;
  }

  std::string JobDir(uint32_t id) const {
    return mount_ + "/rota/" + cluster_->Node(1) + "/uid_0/job_" + std::to_string(id);
  }

  wire::LaunchJobRequest Job(uint32_t id, const std::string& script, uint32_t gpus = 0) {
    wire::LaunchJobRequest req = launch_->Job(id, script, gpus, "v2");
    return req;
  }
  Status Send(uint16_t method, const google::protobuf::MessageLite& message) {
    return launch_->Send(method, message);
  }
  std::string Output(uint32_t id) { return launch_->Output(id); }

  std::string mount_;
  std::string offered_;
  testing::FakeController fake_;
  std::unique_ptr<NodedCluster> cluster_;
  std::unique_ptr<testing::DirectLaunch> launch_;
};

TEST_F(NodedCgroupV2Test, GpuJobOpensItsOwnGpuOnlyAndLeavesNothingBehind) {
  ASSERT_TRUE(StartNode("ConstrainDevices=yes\n")) << cluster_->NodeLogs();
  const std::string pid_file = cluster_->work_dir() + "/grandchild.pid";
  const std::string script =
      "#!/bin/sh\n"
      "grep '^0::' /proc/self/cgroup | sed 's/^/CG /'\n"
      "(exec 3<" +
      cluster_->Gpu(1, 1) + ") 2>&1 | sed 's/^/OPEN_MINE /'\n" + "(exec 3<" + cluster_->Gpu(1, 0) +
      ") 2>&1 | sed 's/^/OPEN_UNALLOCATED /'\n" + "(exec 3<" + cluster_->Gpu(2, 0) +
      ") 2>&1 | sed 's/^/OPEN_OTHER_NODE /'\n" + cluster_->DriverProbeLines() +
      "echo hello > /dev/null && echo NULL_OK\n"
      "setsid sleep 1000 </dev/null >/dev/null 2>&1 &\n"
      "echo $! > " +
      pid_file + "\nexit 0\n";
  // GPU 0 is held by another job: this one gets GPU 1.
  ASSERT_TRUE(Send(api::kLaunchJob, Job(11, "#!/bin/sh\nsleep 1000\n", 1)).ok());
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(JobDir(11)); }));
  ASSERT_TRUE(Send(api::kLaunchJob, Job(12, script, 1)).ok());
  auto exit = fake_.WaitForExit(12);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 0u);
  std::string out = Output(12);
  const bool bpf = noded::ProbeDeviceFilterSupport().ok();
  if (!bpf) {
    // The kernel refuses device programs: the job did not start, and said why.
    EXPECT_NE(cluster_->NodeLogs().find("ConstrainDevices: bpf(BPF_PROG_LOAD)"), std::string::npos);
    return;
  }
  EXPECT_NE(out.find("CG 0::/rota/" + cluster_->Node(1) + "/uid_0/job_12/step_batch\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(1, 1) + ": No such device or address"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(1, 0) + ": Operation not permitted"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(2, 0) + ": Operation not permitted"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("NULL_OK\n"), std::string::npos) << out;
  // The cage denies GRES files only: the driver's own files stay open.
  EXPECT_TRUE(NodedCluster::DriverFilesOpen(out)) << out;
  std::optional<int64_t> pid = ParseInt(Trim(ReadFileText(pid_file)));
  ASSERT_TRUE(pid.has_value());
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(static_cast<pid_t>(*pid)); },
                        std::chrono::seconds(5)));
  EXPECT_FALSE(fs::exists(JobDir(12)));
  EXPECT_NE(cluster_->NodeLogs().find("in cgroup/v2"), std::string::npos);

  wire::SignalJobRequest kill_req;
  kill_req.set_job_id(11);
  kill_req.set_signal(SIGKILL);
  ASSERT_TRUE(Send(api::kSignalJob, kill_req).ok());
  ASSERT_TRUE(fake_.WaitForExit(11).has_value());
  EXPECT_FALSE(fs::exists(JobDir(11)));
}

// ConstrainRAMSpace on a hierarchy without the memory controller (a hybrid
// host): the job does not start, and the log says which limit and why.
// Where the controller exists, the job is killed at its limit and the report
// says OUT_OF_MEMORY.
TEST_F(NodedCgroupV2Test, MemoryLimitIsEnforcedOrTheJobIsRefusedClearly) {
  ASSERT_TRUE(StartNode("ConstrainRAMSpace=yes\n")) << cluster_->NodeLogs();
  wire::LaunchJobRequest job =
      Job(21, "#!/bin/sh\nhead -c 400M /dev/zero | tail > /dev/null\necho SURVIVED\n");
  job.mutable_job()->set_mem_by_node_mb(0, 64);
  ASSERT_TRUE(Send(api::kLaunchJob, job).ok());
  auto exit = fake_.WaitForExit(21, std::chrono::seconds(30));
  ASSERT_TRUE(exit.has_value());
  if (Offers("memory")) {
    EXPECT_TRUE(exit->out_of_memory());
  } else {
    EXPECT_EQ(exit->wait_status(), 1u << 8);
    EXPECT_FALSE(exit->out_of_memory());
    EXPECT_EQ(Output(21).find("SURVIVED"), std::string::npos);
    const std::string logs = cluster_->NodeLogs();
    EXPECT_NE(logs.find("ConstrainRAMSpace: the cgroup v2 hierarchy at " + mount_ +
                        " has no memory controller"),
              std::string::npos)
        << logs;
    EXPECT_NE(logs.find("no memory controller in this hierarchy"), std::string::npos) << logs;
  }
  EXPECT_FALSE(fs::exists(JobDir(21)));
}

}  // namespace
}  // namespace rota
