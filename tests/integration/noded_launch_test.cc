// rotad started for real, as root, with real cgroups (v1) and fake GPUs; the
// test plays the controller: it sends kLaunchJob / kSignalJob itself and a
// FakeController records the registrations and exit reports rotad sends back.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>

#include "common/strings.h"
#include "noded/stepd/step_files.h"
#include "rpc/client.h"
#include "tests/integration/direct_launch.h"
#include "tests/integration/noded_harness.h"

namespace rota {
namespace {

using testing::NodedCluster;
using testing::ReadFileText;
using testing::WaitUntil;

class NodedLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests need root (cgroups, mknod, setuid)";
    ASSERT_NE(fake_.port(), 0);
    cluster_ = std::make_unique<NodedCluster>(fake_.port());
    launch_ = std::make_unique<testing::DirectLaunch>(*cluster_);
    ASSERT_TRUE(launch_->status().ok()) << launch_->status().message();
    ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "rotad log:\n" << cluster_->NodeLogs();
  }

  // A job for node 1 as a controller would send it.
  wire::LaunchJobRequest Job(uint32_t id, const std::string& script, uint32_t gpus = 0) {
    wire::LaunchJobRequest req = launch_->Job(id, script, gpus, "direct");
    req.mutable_payload()->add_environment("SUBMITTER_VAR=kept");
    return req;
  }
  Status Send(uint16_t method, const google::protobuf::MessageLite& message) {
    return launch_->Send(method, message);
  }
  std::string Output(uint32_t id) { return launch_->Output(id); }
  // `signal` to job `id`, as the controller sends it: `terminate` for the
  // job's end (SIGKILL follows after KillWait), `batch_only` for B:SIG.
  Status Signal(uint32_t id, int signal, bool terminate = false, bool batch_only = false,
                bool steps_only = false) {
    wire::SignalJobRequest req;
    req.set_job_id(id);
    req.set_signal(signal);
    req.set_terminate(terminate);
    req.set_batch_only(batch_only);
    req.set_steps_only(steps_only);
    return Send(api::kSignalJob, req);
  }

  testing::FakeController fake_;
  std::unique_ptr<NodedCluster> cluster_;
  std::unique_ptr<testing::DirectLaunch> launch_;
};

TEST_F(NodedLaunchTest, RegistersWithBootTimeCpusMemoryAndGpus) {
  ASSERT_TRUE(WaitUntil([&] { return !fake_.Registrations().empty(); }));
  wire::NodeRegisterRequest reg = fake_.Registrations().front();
  EXPECT_EQ(reg.node(), cluster_->Node(1));
  EXPECT_GT(reg.boot_time(), 1'000'000'000);
  EXPECT_GT(reg.cpus(), 0u);
  EXPECT_GT(reg.real_memory_mb(), 0u);
  EXPECT_EQ(reg.gres(), "gpu:a100:2");
  struct stat st {};
  ASSERT_EQ(stat((cluster_->dir().path() / "spool" / cluster_->Node(1)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
}

TEST_F(NodedLaunchTest, JobRunsCagedWithSlurmEnvironmentAndGpus) {
  const std::string script =
      "#!/bin/sh\n"
      "env\n"
      "echo ARGS=\"$*\"\n"
      "echo UMASK=$(umask) CWD=$(pwd)\n"
      "[ \"$(awk '{print $6}' /proc/$$/stat)\" = $$ ] && echo SESSION_LEADER\n"
      "cat /proc/self/cgroup | grep -E 'devices|freezer|memory|cpuset' | sed 's/^/CG /'\n"
      "(exec 3<" +
      cluster_->Gpu(1, 0) +
      ") 2>&1 | sed 's/^/OPEN_ALLOCATED /'\n"
      "(exec 3<" +
      cluster_->Gpu(2, 0) + ") 2>&1 | sed 's/^/OPEN_OTHER_NODE /'\n" +
      cluster_->DriverProbeLines() + "exit 0\n";
  wire::LaunchJobRequest req = Job(21, script, 2);
  req.mutable_job()->mutable_spec()->add_argv("alpha");
  req.mutable_job()->mutable_spec()->add_argv("beta");
  ASSERT_TRUE(Send(api::kLaunchJob, req).ok());
  auto exit = fake_.WaitForExit(21);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 0u);
  std::string out = Output(21);
  for (std::string line :
       {"SLURM_JOB_ID=21", "SLURM_JOBID=21", "SLURM_JOB_NAME=direct", "SLURM_JOB_USER=root",
        "SLURM_JOB_UID=0", "SLURM_JOB_PARTITION=batch", "SLURM_CLUSTER_NAME=ndtest",
        "SLURM_JOB_NUM_NODES=1", "SLURM_NNODES=1", "SLURM_CPUS_ON_NODE=1", "SLURM_RESTART_COUNT=0",
        "SLURM_GPUS_ON_NODE=2", "SLURM_JOB_GPUS=0,1", "CUDA_VISIBLE_DEVICES=0,1",
        "GPU_DEVICE_ORDINAL=0,1", "ROCR_VISIBLE_DEVICES=0,1", "SUBMITTER_VAR=kept",
        "ARGS=alpha beta"}) {
    EXPECT_NE(out.find(line + "\n"), std::string::npos) << line << " in:\n" << out;
  }
  EXPECT_NE(out.find("SLURM_JOB_NODELIST=" + cluster_->Node(1) + "\n"), std::string::npos);
  EXPECT_NE(out.find("SLURM_SUBMIT_DIR=" + cluster_->work_dir() + "\n"), std::string::npos);
  EXPECT_NE(out.find("UMASK=0022 CWD=" + cluster_->work_dir() + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("SESSION_LEADER\n"), std::string::npos) << out;
  for (const char* c : {"cpuset", "memory", "devices", "freezer"}) {
    EXPECT_NE(out.find(std::string(c) + ":/rota/" + cluster_->Node(1) + "/uid_0/job_21\n"),
              std::string::npos)
        << c << " in:\n"
        << out;
  }
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(1, 0) + ": No such device or address"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(2, 0) + ": Operation not permitted"),
            std::string::npos)
      << out;
  // The cage denies GRES files only: the driver's own files stay open.
  EXPECT_TRUE(NodedCluster::DriverFilesOpen(out)) << out;
  // Gone once the exit was reported: the cage and the spooled script.
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("devices", cluster_->Node(1), 21)));
  EXPECT_FALSE(
      std::filesystem::exists(cluster_->dir().path() / "spool" / cluster_->Node(1) / "job21"));
}

TEST_F(NodedLaunchTest, SecondJobGetsTheNextGpusAndUnallocatedOnesAreForbidden) {
  // Job 31 holds GPU 0 while job 32 runs on GPU 1.
  ASSERT_TRUE(Send(api::kLaunchJob, Job(31, "#!/bin/sh\nsleep 1000\n", 1)).ok());
  const std::string script =
      "#!/bin/sh\nenv | grep -E '^(SLURM_JOB_GPUS|CUDA_VISIBLE_DEVICES)='\n"
      "(exec 3<" +
      cluster_->Gpu(1, 0) +
      ") 2>&1 | sed 's/^/OPEN0 /'\n"
      "(exec 3<" +
      cluster_->Gpu(1, 1) + ") 2>&1 | sed 's/^/OPEN1 /'\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(32, script, 1)).ok());
  ASSERT_TRUE(fake_.WaitForExit(32).has_value());
  std::string out = Output(32);
  EXPECT_NE(out.find("SLURM_JOB_GPUS=1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("CUDA_VISIBLE_DEVICES=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(1, 0) + ": Operation not permitted"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cluster_->Gpu(1, 1) + ": No such device or address"),
            std::string::npos)
      << out;
  ASSERT_TRUE(Signal(31, SIGKILL).ok());
  auto exit = fake_.WaitForExit(31);
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(WIFSIGNALED(exit->wait_status()));
  EXPECT_EQ(WTERMSIG(exit->wait_status()), SIGKILL);
}

// A MIG instance is reached through its access capability file and its
// parent GPU's file: a job on one instance may open both, not the other
// instance's capability, while the driver's other capabilities (not GRES)
// stay open. The instances come from a fake inventory, as NVML would list them.
TEST(NodedMigTest, AJobOpensItsOwnMigInstanceOnly) {
  ASSERT_EQ(geteuid(), 0u) << "this test needs root (cgroups, mknod)";
  testing::FakeController fake;
  NodedCluster cluster(fake.port());
  const std::filesystem::path dev = cluster.dir().path() / "dev";
  const unsigned caps_major = testing::UnusedCharMajor();
  const std::string parent = (dev / "nvidia-mig-parent").string();
  auto cap = [&](int minor) { return (dev / ("nvidia-cap" + std::to_string(minor))).string(); };
  ASSERT_EQ(mknod(parent.c_str(), S_IFCHR | 0666, makedev(195, 230)), 0);
  for (int minor : {1, 21, 30}) {
    ASSERT_EQ(mknod(cap(minor).c_str(), S_IFCHR | 0666, makedev(caps_major, minor)), 0);
  }
  const std::string inventory = cluster.dir().Write(
      "mig-inventory", "Type=1g.10gb File=" + cap(21) + " ParentFile=" + parent + " Uuid=MIG-a\n" +
                           "Type=1g.10gb File=" + cap(30) + " ParentFile=" + parent +
                           " Uuid=MIG-b\n");
  testing::DirectLaunch launch(cluster);
  ASSERT_TRUE(launch.status().ok()) << launch.status().message();
  ASSERT_TRUE(cluster.StartNode(1, {"ROTA_FAKE_GPUS=" + inventory})) << cluster.NodeLogs();
  auto probe = [](const std::string& name, const std::string& path) {
    return "(exec 3<" + path + ") 2>&1 | sed 's/^/" + name + " /'\n";
  };
  const std::string script = "#!/bin/sh\necho CVD=$CUDA_VISIBLE_DEVICES\n" +
                             probe("MINE", cap(21)) + probe("PARENT", parent) +
                             probe("OTHER", cap(30)) + probe("CONFIG", cap(1)) +
                             probe("A100", cluster.Gpu(1, 0));
  wire::LaunchJobRequest req = launch.Job(61, script, 1, "mig");
  req.mutable_job()->set_gpu_type("1g.10gb");
  ASSERT_TRUE(launch.Send(api::kLaunchJob, req).ok());
  auto exit = fake.WaitForExit(61);
  ASSERT_TRUE(exit.has_value()) << cluster.NodeLogs();
  const std::string out = launch.Output(61);
  EXPECT_NE(out.find("cannot open " + cap(21) + ": No such device or address"), std::string::npos)
      << out << cluster.NodeLogs();
  EXPECT_NE(out.find("cannot open " + parent + ": No such device or address"), std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cap(30) + ": Operation not permitted"), std::string::npos)
      << out;
  EXPECT_NE(out.find("cannot open " + cap(1) + ": No such device or address"), std::string::npos)
      << out;
  // gres.conf's GPU files of the node stay denied, found or not by discovery.
  EXPECT_NE(out.find("cannot open " + cluster.Gpu(1, 0) + ": Operation not permitted"),
            std::string::npos)
      << out;
}

TEST_F(NodedLaunchTest, ExitCodeAndFailedStartAreReported) {
  ASSERT_TRUE(Send(api::kLaunchJob, Job(41, "#!/bin/sh\nexit 3\n")).ok());
  auto exit = fake_.WaitForExit(41);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 3u << 8);
  // An output file in a directory that does not exist: the job cannot start.
  wire::LaunchJobRequest bad = Job(42, "#!/bin/sh\ntrue\n");
  bad.mutable_job()->mutable_spec()->set_std_out("/nonexistent/dir/out");
  ASSERT_TRUE(Send(api::kLaunchJob, bad).ok());
  exit = fake_.WaitForExit(42);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 1u << 8);
  EXPECT_NE(
      cluster_->NodeLogs().find("cannot open /nonexistent/dir/out: No such file or directory"),
      std::string::npos);
}

// ConstrainRAMSpace: a job that grows past its memory is killed by the kernel,
// and the report says so, for the controller to record OUT_OF_MEMORY.
TEST_F(NodedLaunchTest, MemoryLimitKillIsReportedAsOutOfMemory) {
  wire::LaunchJobRequest job = Job(43,
                                   "#!/bin/sh\n"
                                   // tail keeps a line with no end in memory: 400 MB of it.
                                   "head -c 400M /dev/zero | tail > /dev/null\n");
  job.mutable_job()->set_mem_by_node_mb(0, 64);
  ASSERT_TRUE(Send(api::kLaunchJob, job).ok());
  auto exit = fake_.WaitForExit(43, std::chrono::seconds(30));
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->out_of_memory());
  EXPECT_NE(exit->wait_status(), 0u);
  // A job that stays inside its limit is not.
  ASSERT_TRUE(Send(api::kLaunchJob, Job(44, "#!/bin/sh\ntrue\n")).ok());
  exit = fake_.WaitForExit(44);
  ASSERT_TRUE(exit.has_value());
  EXPECT_FALSE(exit->out_of_memory());
}

TEST_F(NodedLaunchTest, DaemonisedGrandchildIsKilledWithTheJob) {
  const std::string pid_file = cluster_->work_dir() + "/grandchild.pid";
  const std::string script =
      "#!/bin/sh\nsetsid sleep 1000 </dev/null >/dev/null 2>&1 &\necho $! > " + pid_file +
      "\nexit 0\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(51, script)).ok());
  ASSERT_TRUE(fake_.WaitForExit(51).has_value());
  std::optional<int64_t> pid = ParseInt(Trim(ReadFileText(pid_file)));
  ASSERT_TRUE(pid.has_value());
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(static_cast<pid_t>(*pid)); },
                        std::chrono::seconds(5)));
  for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids", "cpuacct"}) {
    EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir(c, cluster_->Node(1), 51))) << c;
  }
}

TEST_F(NodedLaunchTest, RunsAsTheSubmittingUserWithOwnedOutput) {
  const std::string user = "rotand" + std::to_string(getpid());
  ASSERT_EQ(std::system(("useradd -M -N -s /bin/sh " + user).c_str()), 0);
  struct Cleanup {
    std::string user;
    ~Cleanup() { std::system(("userdel " + user + " 2>/dev/null").c_str()); }
  } cleanup{user};
  passwd* pw = getpwnam(user.c_str());
  ASSERT_NE(pw, nullptr);
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  wire::LaunchJobRequest req = Job(61,
                                   "#!/bin/sh\necho ID=$(id -u):$(id -g) GROUPS=$(id -G)\n"
                                   "touch /root-owned-should-fail 2>&1 | sed 's/^/TOUCH /'\n");
  wire::JobSpec& spec = *req.mutable_job()->mutable_spec();
  spec.set_user(user);
  spec.set_uid(uid);
  spec.set_gid(gid);
  spec.set_std_out("%u-%j.out");
  ASSERT_TRUE(Send(api::kLaunchJob, req).ok());
  auto exit = fake_.WaitForExit(61);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 0u);
  const std::string out_path = cluster_->work_dir() + "/" + user + "-61.out";
  std::string out = ReadFileText(out_path);
  EXPECT_NE(out.find("ID=" + std::to_string(uid) + ":" + std::to_string(gid) +
                     " GROUPS=" + std::to_string(gid) + "\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Permission denied"), std::string::npos) << out;
  struct stat st {};
  ASSERT_EQ(stat(out_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);
  EXPECT_EQ(st.st_gid, gid);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(NodedLaunchTest, StaleCgroupsAreSweptAtStart) {
  // As if a rotad of node 2 had crashed with job 77 running.
  const std::string node = cluster_->Node(2);
  pid_t orphan = fork();
  if (orphan == 0) {
    execl("/bin/sleep", "sleep", "1000", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (const char* c : {"freezer", "pids"}) {
    std::filesystem::create_directories(NodedCluster::CgroupDir(c, node, 77));
    std::ofstream(NodedCluster::CgroupDir(c, node, 77) + "/cgroup.procs") << orphan;
  }
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  int status = 0;
  EXPECT_EQ(waitpid(orphan, &status, 0), orphan);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("freezer", node, 77)));
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("pids", node, 77)));
}

// A step record whose rota-stepd is gone and left no outcome (the host lost
// it while rotad was down): the job is reported failed on this node, with the
// reason, its cage is swept and its files go.
TEST_F(NodedLaunchTest, JobWhoseStepDaemonVanishedIsReportedFailedAtStart) {
  const std::string node = cluster_->Node(2);
  const std::string spool = (cluster_->dir().path() / "spool" / node).string();
  std::filesystem::create_directories(spool);
  wire::StepRecord record;
  *record.mutable_launch() = Job(91, "#!/bin/sh\nsleep 1000\n");
  record.mutable_launch()->mutable_job()->set_nodes(0, node);
  ASSERT_TRUE(noded::WriteStepRecord(spool, record).ok());
  std::filesystem::create_directories(NodedCluster::CgroupDir("freezer", node, 91));
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  auto exit = fake_.WaitForExit(91);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->node(), node);
  EXPECT_EQ(exit->wait_status(), 1u << 8);
  EXPECT_NE(exit->failure_reason().find("rota-stepd died while rotad was down"), std::string::npos)
      << exit->failure_reason();
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("freezer", node, 91)));
  EXPECT_TRUE(WaitUntil([&] { return noded::ListStepJobs(spool).empty(); }));
}

// A job that ended while rotad was down (its outcome recorded) is reported by
// the next rotad as it ended.
TEST_F(NodedLaunchTest, OutcomeRecordedWhileRotadWasDownIsReportedAtStart) {
  const std::string node = cluster_->Node(2);
  const std::string spool = (cluster_->dir().path() / "spool" / node).string();
  std::filesystem::create_directories(spool);
  wire::StepRecord record;
  *record.mutable_launch() = Job(92, "#!/bin/sh\ntrue\n");
  record.mutable_launch()->mutable_job()->set_nodes(0, node);
  ASSERT_TRUE(noded::WriteStepRecord(spool, record).ok());
  wire::JobExitedRequest ended;
  ended.set_job_id(92);
  ended.set_node(node);
  ended.set_wait_status(5u << 8);
  ended.set_out_of_memory(true);
  ASSERT_TRUE(noded::WriteStepOutcome(spool, ended).ok());
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  auto exit = fake_.WaitForExit(92);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 5u << 8);
  EXPECT_TRUE(exit->out_of_memory());
  EXPECT_TRUE(exit->failure_reason().empty());
  EXPECT_TRUE(WaitUntil([&] {
    return noded::ListStepJobs(spool).empty() && !noded::ReadStepOutcome(spool, 92).has_value();
  }));
}

// The step daemon servers (rota-stepd -S) of this test's node `n`, found by
// their command line, which names this test's own slurm.conf.
std::vector<pid_t> StepDaemonServers(const NodedCluster& cluster, int n) {
  const std::vector<std::string> wanted{"-f", cluster.conf(), "-N", cluster.Node(n), "-S"};
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::optional<uint64_t> pid = ParseUint(entry.path().filename().string());
    if (!pid) continue;
    std::string cmdline = ReadFileText(entry.path().string() + "/cmdline");
    std::vector<std::string_view> args = Split(cmdline, '\0');
    if (!args.empty() && args.back().empty()) args.pop_back();
    if (args.size() == wanted.size() + 1 && args[0].ends_with("/rota-stepd") &&
        std::equal(wanted.begin(), wanted.end(), args.begin() + 1) &&
        testing::ProcessAlive(static_cast<pid_t>(*pid))) {
      found.push_back(static_cast<pid_t>(*pid));
    }
  }
  return found;
}

// rotad forks each job's step daemon from a rota-stepd it keeps ready; with
// that server gone, it starts them by exec, and jobs run all the same.
TEST_F(NodedLaunchTest, JobsRunWithAndWithoutTheStepDaemonServer) {
  std::vector<pid_t> servers = StepDaemonServers(*cluster_, 1);
  ASSERT_EQ(servers.size(), 1u) << cluster_->NodeLogs();
  ASSERT_TRUE(Send(api::kLaunchJob, Job(81, "#!/bin/sh\necho forked $SLURM_JOB_ID\n")).ok());
  auto forked = fake_.WaitForExit(81);
  ASSERT_TRUE(forked.has_value());
  EXPECT_EQ(forked->wait_status(), 0u);
  EXPECT_EQ(Output(81), "forked 81\n");

  ASSERT_EQ(kill(servers[0], SIGKILL), 0);
  ASSERT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(servers[0]); }));
  ASSERT_TRUE(Send(api::kLaunchJob, Job(82, "#!/bin/sh\necho exec $SLURM_JOB_ID\n")).ok());
  auto execd = fake_.WaitForExit(82);
  ASSERT_TRUE(execd.has_value());
  EXPECT_EQ(execd->wait_status(), 0u);
  EXPECT_EQ(Output(82), "exec 82\n");
  EXPECT_NE(cluster_->NodeLogs().find("starting its step daemon by exec"), std::string::npos);
}

// The server goes with rotad, however rotad ends; the jobs it forked do not.
TEST_F(NodedLaunchTest, StepDaemonServerEndsWithRotadButItsJobsRunOn) {
  std::vector<pid_t> servers = StepDaemonServers(*cluster_, 1);
  ASSERT_EQ(servers.size(), 1u) << cluster_->NodeLogs();
  const std::string marker = cluster_->work_dir() + "/job83.started";
  ASSERT_TRUE(
      Send(api::kLaunchJob, Job(83, "#!/bin/sh\necho $$ > " + marker + "\nexec sleep 1000\n"))
          .ok());
  ASSERT_TRUE(WaitUntil([&] { return !Trim(ReadFileText(marker)).empty(); }));
  auto script = static_cast<pid_t>(ParseUint(Trim(ReadFileText(marker))).value_or(0));
  ASSERT_GT(script, 0);
  cluster_->StopNode(1, SIGKILL);
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(servers[0]); }));
  EXPECT_TRUE(testing::ProcessAlive(script));
  // The next rotad takes the job back and has a server of its own. (The
  // job's step daemon, a fork of the old server, is not taken for one: it
  // shows its job instead of -S.)
  ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  EXPECT_EQ(StepDaemonServers(*cluster_, 1).size(), 1u);
  ASSERT_TRUE(Signal(83, SIGKILL).ok());
  auto exit = fake_.WaitForExit(83);
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(WIFSIGNALED(exit->wait_status()));
}

TEST_F(NodedLaunchTest, RefusesJobsForOtherNodesAndForgedCredentials) {
  wire::LaunchJobRequest req = Job(71, "#!/bin/sh\ntrue\n");
  req.mutable_job()->set_nodes(0, cluster_->Node(2));
  EXPECT_EQ(Send(api::kLaunchJob, req).code(), StatusCode::kInvalidArgument);
  rpc::RpcClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1", cluster_->NodePort(1), std::chrono::seconds(3)).ok());
  auto answer = client.Call(api::kLaunchJob, "forged", Job(72, "#!/bin/sh\n").SerializeAsString(),
                            std::chrono::seconds(5));
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->ToStatus().code(), StatusCode::kPermissionDenied);
}

// The controller's SIGTERM at the time limit: every process of the job gets
// it; a job that ignores it gets SIGKILL KillWait (2 s here) later.
TEST_F(NodedLaunchTest, TermIgnoredIsFollowedByKillAfterKillWait) {
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo GOT_TERM' TERM\n"
      "sleep 1000 &\n"
      "echo $! > child.pid\n"
      "echo READY\n"
      "while true; do sleep 0.1; done\n"
      "echo NEVER\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(81, script)).ok());
  ASSERT_TRUE(WaitUntil([&] { return Output(81).find("READY") != std::string::npos; }));
  std::optional<int64_t> child = ParseInt(Trim(ReadFileText(cluster_->work_dir() + "/child.pid")));
  ASSERT_TRUE(child.has_value());
  // Between fork and exec the child still runs the shell's TERM trap handler,
  // which would swallow the signal: wait until it really is `sleep`.
  ASSERT_TRUE(WaitUntil(
      [&] { return Trim(ReadFileText("/proc/" + std::to_string(*child) + "/comm")) == "sleep"; }));
  auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(Signal(81, SIGTERM, true).ok());
  // The background child had no trap: SIGTERM reached it through the cage.
  EXPECT_TRUE(WaitUntil([&] { return !testing::ProcessAlive(static_cast<pid_t>(*child)); },
                        std::chrono::seconds(1)));
  ASSERT_TRUE(WaitUntil([&] { return Output(81).find("GOT_TERM") != std::string::npos; },
                        std::chrono::seconds(2)));
  EXPECT_FALSE(fake_.WaitForExit(81, std::chrono::milliseconds(1500)).has_value());
  auto exit = fake_.WaitForExit(81, std::chrono::seconds(10));
  ASSERT_TRUE(exit.has_value());
  auto waited = std::chrono::steady_clock::now() - sent;
  EXPECT_GE(waited, std::chrono::milliseconds(1900));
  EXPECT_LT(waited, std::chrono::seconds(8));
  EXPECT_TRUE(WIFSIGNALED(exit->wait_status()));
  EXPECT_EQ(WTERMSIG(exit->wait_status()), SIGKILL);
  std::string out = Output(81);
  // (The shell also says "Terminated" of its sleep, which the TERM killed.)
  ASSERT_NE(out.find("GOT_TERM\n"), std::string::npos) << out;
  EXPECT_LT(out.find("READY\n"), out.find("GOT_TERM\n")) << out;
  EXPECT_EQ(out.find("NEVER"), std::string::npos) << out;
}

TEST_F(NodedLaunchTest, TermHandledEndsTheJobBeforeKillWait) {
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo CLEANING_UP; exit 7' TERM\n"
      "echo READY\n"
      "while true; do sleep 0.1; done\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(82, script)).ok());
  ASSERT_TRUE(WaitUntil([&] { return Output(82).find("READY") != std::string::npos; }));
  ASSERT_TRUE(Signal(82, SIGTERM, true).ok());
  auto exit = fake_.WaitForExit(82, std::chrono::seconds(10));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->wait_status(), 7u << 8);
  EXPECT_NE(Output(82).find("CLEANING_UP\n"), std::string::npos) << Output(82);
}

// A whole-job TERM (scancel -f -s TERM, the REST API) reaches every process, and that is all:
// only the end of a job (terminate) brings SIGKILL after KillWait.
TEST_F(NodedLaunchTest, PlainTermIsDeliveredNotEscalated) {
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo GOT_TERM' TERM\n"
      "echo READY\n"
      "while true; do sleep 0.1; done\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(84, script)).ok());
  ASSERT_TRUE(WaitUntil([&] { return Output(84).find("READY") != std::string::npos; }));
  ASSERT_TRUE(Signal(84, SIGTERM).ok());
  EXPECT_TRUE(WaitUntil([&] { return Output(84).find("GOT_TERM") != std::string::npos; },
                        std::chrono::seconds(3)));
  EXPECT_FALSE(fake_.WaitForExit(84, std::chrono::seconds(3)).has_value());  // > KillWait
  ASSERT_TRUE(Signal(84, SIGKILL).ok());
  auto exit = fake_.WaitForExit(84);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(WTERMSIG(exit->wait_status()), SIGKILL);
}

// A user's signal for the steps only (scancel -s without -b or -f) leaves the
// batch script and what it runs itself alone, as Slurm's does.
TEST_F(NodedLaunchTest, ASignalForTheStepsLeavesTheBatchScriptAlone) {
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo GOT_USR1' USR1\n"
      "echo READY\n"
      "while true; do sleep 0.1; done\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(85, script)).ok());
  ASSERT_TRUE(WaitUntil([&] { return Output(85).find("READY") != std::string::npos; }));
  ASSERT_TRUE(Signal(85, SIGUSR1, false, false, /*steps_only=*/true).ok());
  EXPECT_FALSE(WaitUntil([&] { return Output(85).find("GOT_USR1") != std::string::npos; },
                         std::chrono::milliseconds(1500)));
  ASSERT_TRUE(Signal(85, SIGUSR1).ok());  // The whole job: the script too.
  EXPECT_TRUE(WaitUntil([&] { return Output(85).find("GOT_USR1") != std::string::npos; },
                        std::chrono::seconds(3)));
  ASSERT_TRUE(Signal(85, SIGKILL).ok());
  EXPECT_TRUE(fake_.WaitForExit(85).has_value());
}

// --signal=B:TERM@secs is a warning to the script only: no SIGKILL follows.
TEST_F(NodedLaunchTest, BatchOnlyTermIsOnlyAWarning) {
  const std::string script =
      "#!/bin/sh\n"
      "trap 'echo WARNED' TERM\n"
      "echo READY\n"
      "while true; do sleep 0.1; done\n";
  ASSERT_TRUE(Send(api::kLaunchJob, Job(83, script)).ok());
  ASSERT_TRUE(WaitUntil([&] { return Output(83).find("READY") != std::string::npos; }));
  ASSERT_TRUE(Signal(83, SIGTERM, false, true).ok());
  EXPECT_TRUE(WaitUntil([&] { return Output(83).find("WARNED") != std::string::npos; },
                        std::chrono::seconds(3)));
  EXPECT_FALSE(fake_.WaitForExit(83, std::chrono::seconds(3)).has_value());  // > KillWait
  ASSERT_TRUE(Signal(83, SIGKILL).ok());
  auto exit = fake_.WaitForExit(83);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(WTERMSIG(exit->wait_status()), SIGKILL);
}

// A GPU of gres.conf whose device file is missing is not reported: the
// controller compares the report with the NodeName line.
TEST_F(NodedLaunchTest, MissingGpuDeviceIsNotReported) {
  ASSERT_EQ(unlink(cluster_->Gpu(2, 1).c_str()), 0);
  ASSERT_TRUE(cluster_->StartNode(2)) << cluster_->NodeLogs();
  auto from_node2 = [&]() -> std::optional<wire::NodeRegisterRequest> {
    for (const auto& r : fake_.Registrations()) {
      if (r.node() == cluster_->Node(2)) return r;
    }
    return std::nullopt;
  };
  ASSERT_TRUE(WaitUntil([&] { return from_node2().has_value(); }));
  EXPECT_EQ(from_node2()->gres(), "gpu:a100:1");
  EXPECT_TRUE(from_node2()->hardware_reported());
  EXPECT_NE(cluster_->NodeLogs().find(cluster_->Gpu(2, 1) + " of gres.conf is not there"),
            std::string::npos);
}

// A cpuacct cgroup per job costs every job a mkdir and rmdir in the kernel:
// jobs get one only under JobAcctGatherType=jobacct_gather/cgroup, as in Slurm.
TEST_F(NodedLaunchTest, JobsGetACpuacctCageOnlyUnderCgroupGathering) {
  if (!std::filesystem::exists("/sys/fs/cgroup/cpuacct/cgroup.procs")) {
    GTEST_SKIP() << "no cgroup v1 cpuacct hierarchy on this host";
  }
  auto job_runs = [&](uint32_t id) {
    if (!Send(api::kLaunchJob, Job(id, "#!/bin/sh\nsleep 1000\n")).ok()) return false;
    return WaitUntil(
        [&] {
          return std::filesystem::exists(NodedCluster::CgroupDir("freezer", cluster_->Node(1), id));
        },
        std::chrono::seconds(10));
  };
  ASSERT_TRUE(job_runs(95)) << cluster_->NodeLogs();
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("cpuacct", cluster_->Node(1), 95)));
  EXPECT_TRUE(std::filesystem::exists(NodedCluster::CgroupDir("memory", cluster_->Node(1), 95)));
  ASSERT_TRUE(Signal(95, SIGKILL, true).ok());
  ASSERT_TRUE(fake_.WaitForExit(95).has_value());

  launch_.reset();
  cluster_ =
      std::make_unique<NodedCluster>(fake_.port(), "JobAcctGatherType=jobacct_gather/cgroup\n");
  launch_ = std::make_unique<testing::DirectLaunch>(*cluster_);
  ASSERT_TRUE(launch_->status().ok()) << launch_->status().message();
  ASSERT_TRUE(cluster_->StartNode(1)) << cluster_->NodeLogs();
  ASSERT_TRUE(job_runs(96)) << cluster_->NodeLogs();
  EXPECT_TRUE(std::filesystem::exists(NodedCluster::CgroupDir("cpuacct", cluster_->Node(1), 96)));
  ASSERT_TRUE(Signal(96, SIGKILL, true).ok());
  ASSERT_TRUE(fake_.WaitForExit(96).has_value());
  EXPECT_FALSE(std::filesystem::exists(NodedCluster::CgroupDir("cpuacct", cluster_->Node(1), 96)));
}

}  // namespace
}  // namespace rota
