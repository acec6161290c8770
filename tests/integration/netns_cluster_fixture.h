#pragma once

// A cluster of separate hosts on this machine (netns_hosts.h): rotactld and
// rotadbd on host "ctl", one rotad on each of node1..node4, the commands on
// host "login", all started from BinDir() (ROTA_BIN_DIR). Root only.
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

inline const std::vector<std::string> kNodes = {"node1", "node2", "node3", "node4"};

class NetnsClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // ctest runs each case as a process of its own, in parallel; the cases'
    // nodes share names (and so cgroups), hence one case at a time.
    lock_fd_ = open("/tmp/rota-netns-cluster-test.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    ASSERT_GE(lock_fd_, 0);
    ASSERT_EQ(flock(lock_fd_, LOCK_EX), 0);
    chmod(dir_.path().c_str(), 0755);
    std::vector<std::string> names = ControllerHosts();
    names.push_back("login");
    names.insert(names.end(), kNodes.begin(), kNodes.end());
    hosts_ = std::make_unique<NetnsHosts>(names, Dir());
    ASSERT_TRUE(hosts_->error().empty()) << hosts_->error();
    std::filesystem::create_directories(Dir() + "/work");
    chmod((Dir() + "/work").c_str(), 0777);
    WriteConfig();
    PrepareHosts();
    daemons_.push_back(Start("ctl", "rotadbd", {"-f", Conf(), "-s", Dir() + "/dbd"}));
    for (const std::string& host : ControllerHosts()) {
      daemons_.push_back(Start(host, "rotactld", {"-f", Conf()}));
    }
    // No -N: each rotad is the node its host name says.
    for (const std::string& node : kNodes) daemons_.push_back(Start(node, "rotad", RotadArgs()));
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

  // The controllers' hosts, primary first (each runs rotactld; the first
  // also rotadbd), and more slurm.conf lines: for the fixtures that need them.
  virtual std::vector<std::string> ControllerHosts() const { return {"ctl"}; }
  virtual std::string ExtraSettings() const { return ""; }
  // How each rotad is started, and what a fixture does to the hosts before
  // any daemon starts (its own files and mounts).
  virtual std::vector<std::string> RotadArgs() const { return {"-f", Conf()}; }
  virtual void PrepareHosts() {}
  std::string SlurmctldHostLines() const {
    std::string lines;
    for (const std::string& host : ControllerHosts()) lines += "SlurmctldHost=" + host + "\n";
    return lines + ExtraSettings();
  }

  void WriteConfig() {
    std::ofstream conf(Conf());
    conf << "ClusterName=hosts\n"
         << SlurmctldHostLines()
         << "SlurmctldPort=6817\n"
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
            "SchedulerParameters=bf_interval=1\n"
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

}  // namespace rota::testing
