// A cluster of separate hosts on this machine (netns_hosts.h): rotactld and
// rotadbd on host "ctl", one rotad on each of node1..node4, the commands on
// host "login". Every host has its own network, address, hostname and
// /etc/hosts; nothing may assume 127.0.0.1 or a shared host name. Jobs, steps
// across hosts, PMI-2 fences, a node's network cut, accounting.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "common/strings.h"
#include "testing/temp_dir.h"
#include "tests/integration/netns_hosts.h"
#include "tests/integration/noded_harness.h"

namespace rota::testing {
namespace {

const std::vector<std::string> kNodes = {"node1", "node2", "node3", "node4"};

class NetnsClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // ctest runs each case as a process of its own, in parallel; the cases'
    // nodes share names (and so cgroups), hence one case at a time.
    lock_fd_ = open("/tmp/rota-netns-cluster-test.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    ASSERT_GE(lock_fd_, 0);
    ASSERT_EQ(flock(lock_fd_, LOCK_EX), 0);
    chmod(dir_.path().c_str(), 0755);
    std::vector<std::string> names = {"ctl", "login"};
    names.insert(names.end(), kNodes.begin(), kNodes.end());
    hosts_ = std::make_unique<NetnsHosts>(names, Dir());
    ASSERT_TRUE(hosts_->error().empty()) << hosts_->error();
    std::filesystem::create_directories(Dir() + "/work");
    chmod((Dir() + "/work").c_str(), 0777);
    WriteConfig();
    daemons_.push_back(Start("ctl", "rotadbd", {"-f", Conf(), "-s", Dir() + "/dbd"}));
    daemons_.push_back(Start("ctl", "rotactld", {"-f", Conf()}));
    // No -N: each rotad is the node its host name says.
    for (const std::string& node : kNodes) daemons_.push_back(Start(node, "rotad", {"-f", Conf()}));
    ASSERT_TRUE(WaitUntil(
        [&] {
          return Trim(Login("sinfo -h -N -p batch -o '%N %t' | sort | tr '\\n' ' '").out) ==
                 "node1 idle node2 idle node3 idle node4 idle";
        },
        std::chrono::seconds(30)))
        << Login("sinfo -N").out << Logs();
  }

  void TearDown() override {
    if (HasFailure()) std::cerr << Logs();
    daemons_.clear();  // Nodes last started, first stopped: reverse order.
    hosts_.reset();
    // rotad removes its cgroups when stopped; a killed one may leave them.
    for (const std::string& node : kNodes) {
      RunShell("for c in /sys/fs/cgroup/*/rota/" + node +
               "; do find $c -depth -type d -exec rmdir {} \\; ; done 2>/dev/null");
    }
    if (lock_fd_ >= 0) close(lock_fd_);  // Releases the lock.
  }

  std::string Dir() const { return dir_.path().string(); }
  std::string Conf() const { return Dir() + "/slurm.conf"; }

  void WriteConfig() {
    std::ofstream conf(Conf());
    conf << "ClusterName=hosts\n"
            "SlurmctldHost=ctl\n"
            "SlurmctldPort=6817\n"
            "SlurmdPort=6818\n"
            "SlurmUser=root\n"
            "AuthType=auth/slurm\n"
            "AuthInfo=socket="
         << Dir()
         << "/auth.socket\n"
            "StateSaveLocation="
         << Dir()
         << "/state\n"
            "SlurmdSpoolDir="
         << Dir()
         << "/spool/%n\n"
            "SlurmdParameters=config_overrides\n"
            "ProctrackType=proctrack/cgroup\n"
            "TaskPlugin=task/cgroup\n"
            "SelectType=select/cons_tres\n"
            "SelectTypeParameters=CR_Core_Memory\n"
            "SchedulerParameters=sched_interval=1,bf_interval=1\n"
            "DefMemPerCPU=100\n"
            "KillWait=2\n"
            "SlurmdTimeout=6\n"
            "ReturnToService=2\n"
            "AccountingStorageType=accounting_storage/slurmdbd\n"
            "AccountingStorageHost=ctl\n"
            "AccountingStoragePort=6819\n"
            "NodeName=node[1-4] CPUs=2 CoresPerSocket=2 RealMemory=2000 State=UNKNOWN\n"
            "PreemptType=preempt/partition_prio\n"
            "PreemptMode=REQUEUE\n"
            "PartitionName=batch Nodes=node[1-4] Default=YES MaxTime=60 PriorityTier=1\n"
            "PartitionName=high Nodes=node[1-4] MaxTime=60 PriorityTier=10\n";
    conf.close();
    std::ofstream(Dir() + "/cgroup.conf") << "ConstrainRAMSpace=yes\n";
    std::string key(64, '\0');
    std::ifstream("/dev/urandom").read(key.data(), 64);
    std::ofstream(Dir() + "/slurm.key") << key;
    chmod((Dir() + "/slurm.key").c_str(), 0600);
  }

  std::unique_ptr<DaemonProcess> Start(const std::string& host, const std::string& program,
                                       std::vector<std::string> args) {
    args.insert(args.begin(), BinDir() + "/" + program);
    const std::string log = Dir() + "/" + host + "-" + program + ".log";
    return std::make_unique<DaemonProcess>(hosts_->On(host, args), log);
  }

  // A shell line on the login host, with the built commands first on PATH.
  CommandResult Login(const std::string& line) const {
    return hosts_->Run("login", "cd " + Dir() + "/work && SLURM_CONF=" + Conf() +
                                    " PATH=" + BinDir() + ":$PATH " + line);
  }

  std::string Submit(const std::string& options, const std::string& script) {
    const std::string path = Dir() + "/work/job" + std::to_string(++scripts_) + ".sh";
    std::ofstream(path) << "#!/bin/sh\n" << script;
    chmod(path.c_str(), 0755);
    CommandResult r = Login("sbatch --parsable " + options + " " + path);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }

  std::string State(const std::string& job) const {
    return std::string(Trim(Login("squeue -h -t all -o %T -j " + job).out));
  }
  bool WaitForState(const std::string& job, const std::string& state,
                    std::chrono::seconds timeout = std::chrono::seconds(60)) const {
    return WaitUntil([&] { return State(job) == state; }, timeout);
  }
  std::string Output(const std::string& job) const {
    return ReadFileText(Dir() + "/work/slurm-" + job + ".out");
  }

  std::string Logs() const {
    std::string out;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      if (entry.path().extension() != ".log") continue;
      out +=
          "---- " + entry.path().filename().string() + "\n" + ReadFileText(entry.path().string());
    }
    return out;
  }

  int lock_fd_ = -1;
  TempDir dir_;
  std::unique_ptr<NetnsHosts> hosts_;
  std::vector<std::unique_ptr<DaemonProcess>> daemons_;
  int scripts_ = 0;
};

TEST_F(NetnsClusterTest, BatchJobRunsOnAHostOfItsOwn) {
  // The login host is not a node and has a name of its own.
  EXPECT_EQ(Trim(hosts_->Run("login", "hostname").out), "login");
  const std::string id = Submit("-w node3", "echo \"host=$(hostname) node=$SLURMD_NODENAME\"\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  EXPECT_EQ(Output(id), "host=node3 node=node3\n");
  EXPECT_EQ(Trim(Login("squeue -h -t all -j " + id + " -o %N").out), "node3");
}

TEST_F(NetnsClusterTest, StepsSpanHostsAndStreamBackToTheLoginHost) {
  // srun from the login host: an allocation on two hosts, each task's output
  // back over the network.
  CommandResult direct = Login("srun -N2 -n2 -l hostname 2>/dev/null | sort");
  EXPECT_EQ(direct.exit_code, 0) << direct.out;
  std::vector<std::string_view> lines = Split(Trim(direct.out), '\n');
  ASSERT_EQ(lines.size(), 2u) << direct.out;
  std::set<std::string> hosts;
  for (std::string_view l : lines) hosts.insert(std::string(Trim(l.substr(l.find(':') + 1))));
  EXPECT_EQ(hosts.size(), 2u) << direct.out;
  for (const std::string& h : hosts) EXPECT_EQ(h.rfind("node", 0), 0u) << h;

  // Inside a batch job: a step over four hosts, and PMI-2 fences across them.
  const std::string id = Submit("-N4 --ntasks-per-node=1",
                                "srun -l hostname | sort\n"
                                "srun --mpi=pmi2 -l " +
                                    BinDir() +
                                    "/pmi2_test_client | sort\n"
                                    // -w and -x pick the step's hosts among the job's.
                                    "srun -n1 -w node3 hostname\n"
                                    "srun -N3 -n3 -x node1 -l hostname | sort\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << Output(id);
  const std::string out = Output(id);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_NE(out.find(std::to_string(rank) + ": node" + std::to_string(rank + 1) + "\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find(std::to_string(rank) + ": rank=" + std::to_string(rank) + " size=4"),
              std::string::npos)
        << out;
  }
  EXPECT_NE(out.find("\nnode3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("0: node2\n1: node3\n2: node4\n"), std::string::npos) << out;
  size_t fences = 0;
  for (size_t at = out.find("saw=3/3 ok\n"); at != std::string::npos;
       at = out.find("saw=3/3 ok\n", at + 1)) {
    ++fences;
  }
  EXPECT_EQ(fences, 4u) << out;
}

// Debian's Open MPI over PMIx on two hosts, with none of the one-host
// settings pmix_test needs (loopback TCP, no shared memory): each rank's host
// has its own name and address, as on a real cluster.
TEST_F(NetnsClusterTest, OpenMpiAllreducesAcrossHostsUnderSrunAndMpirun) {
  const std::string program = BinDir() + "/mpi_allreduce_test_program";
  ASSERT_TRUE(std::filesystem::exists(program))
      << program << " was not built: Open MPI (libopenmpi-dev) was missing when CMake ran";
  const std::string id =
      Submit("-N2 -n4 -w node[1-2]",
             "srun --mpi=pmix " + program +
                 "\necho srun_rc=$?\n"
                 "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpirun " +
                 program + "\necho mpirun_rc=$?\n");
  ASSERT_TRUE(WaitForState(id, "COMPLETED", std::chrono::seconds(90))) << Output(id);
  const std::string out = Output(id);
  const std::string want = "allreduce size=4 sum=10 ok nodes=node1,node1,node2,node2\n";
  EXPECT_NE(out.find(want), std::string::npos) << out;
  EXPECT_NE(out.find(want, out.find(want) + 1), std::string::npos) << "mpirun's run:\n" << out;
  EXPECT_NE(out.find("srun_rc=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mpirun_rc=0\n"), std::string::npos) << out;
}

TEST_F(NetnsClusterTest, ANodeCutOffTheNetworkIsDownItsJobRequeuedAndItReturns) {
  const std::string id = Submit("-w node4 --requeue", "sleep 300\n");
  ASSERT_TRUE(WaitForState(id, "RUNNING"));
  // Cut node4's link: its rotad and job live on, unheard.
  const std::string cut = "ip link set eth0 down";
  ASSERT_EQ(hosts_->Run("node4", cut).exit_code, 0);
  EXPECT_TRUE(WaitUntil(
      [&] { return Trim(Login("sinfo -h -n node4 -o %t").out).find("down") != std::string::npos; },
      std::chrono::seconds(30)))
      << Login("sinfo -N").out;
  // The job is requeued (it asked for it) and waits, node4 being the only one it takes.
  EXPECT_TRUE(WaitUntil([&] { return State(id) == "PENDING"; }, std::chrono::seconds(30)))
      << State(id);
  // The link back: the node registers again (ReturnToService=2) and the job runs again.
  ASSERT_EQ(hosts_->Run("node4", "ip link set eth0 up").exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return State(id) == "RUNNING"; }, std::chrono::seconds(40)))
      << Login("sinfo -N").out << Login("squeue -j " + id).out;
  EXPECT_EQ(Trim(Login("squeue -h -j " + id + " -o %N").out), "node4");
  if (getenv("ROTA_NETNS_LOGS")) std::cerr << Logs();
  Login("scancel " + id);
}

TEST_F(NetnsClusterTest, AHigherTierJobPreemptsOneOnAnotherHost) {
  const std::string low = Submit("-p batch -w node2 -n2 --requeue", "sleep 300\n");
  ASSERT_TRUE(WaitForState(low, "RUNNING"));
  const std::string high = Submit("-p high -w node2 -n2", "echo \"high on $(hostname)\"\n");
  ASSERT_TRUE(WaitForState(high, "COMPLETED")) << Login("squeue -t all").out;
  EXPECT_EQ(Output(high), "high on node2\n");
  // The preempted job was requeued, and runs again once node2 is free.
  EXPECT_TRUE(WaitForState(low, "RUNNING", std::chrono::seconds(40))) << State(low);
  EXPECT_EQ(Trim(Login("squeue -h -j " + low + " -o %N").out), "node2");
  EXPECT_TRUE(WaitUntil([&] {
    return Trim(Login("sacct -n -X -P -j " + low + " -o State -D").out).find("PREEMPTED") !=
           std::string::npos;
  })) << Login("sacct -j " + low + " -D").out;
  Login("scancel " + low);
}

TEST_F(NetnsClusterTest, AccountingRecordsWhereJobsRan) {
  const std::string a = Submit("-w node1", "true\n");
  const std::string b = Submit("-N2 -w node[2-3]", "srun true\n");
  ASSERT_TRUE(WaitForState(a, "COMPLETED"));
  ASSERT_TRUE(WaitForState(b, "COMPLETED")) << Output(b);
  EXPECT_TRUE(WaitUntil([&] {
    return Trim(Login("sacct -n -X -P -j " + a + "," + b + " -o JobID,NodeList,State").out) ==
           a + "|node1|COMPLETED\n" + b + "|node[2-3]|COMPLETED";
  })) << Login("sacct -j " + a + "," + b + " -o JobID,NodeList,State").out;
}

}  // namespace
}  // namespace rota::testing
