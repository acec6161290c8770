// Configless nodes and commands (docs/running.md, "Configless nodes"), on
// hosts of their own: the controller runs with SlurmctldParameters=
// enable_configless; each node host has only the key in its /etc/slurm and
// starts `rotad --conf-server ctl`; the login host has only the key and finds
// the controller from $SLURM_CONF_SERVER or the DNS SRV record _slurmctld._tcp
// that a dnsmasq on the controller's host serves. Checked: jobs run on nodes
// that fetched their files, `scontrol reconfigure` reaches the nodes' copies,
// a node restarted while the controller is down starts from its copy, and the
// commands work without a slurm.conf and leave no files behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/strings.h"
#include "tests/integration/netns_cluster_fixture.h"

namespace rota::testing {
namespace {

constexpr int kNodeDaemonsFrom = 2;  // daemons_: rotadbd, rotactld, then node1..node4

class ConfiglessTest : public NetnsClusterTest {
 protected:
  std::string ExtraSettings() const override {
    return "SlurmctldParameters=enable_configless\nInclude extra.conf\n";
  }
  std::vector<std::string> RotadArgs() const override { return {"--conf-server", "ctl"}; }

  // Each node and the login host get an /etc/slurm holding only the key and
  // a /run/slurm of their own, as separate machines would have. The mount
  // points are made on this machine when missing, and removed again.
  void PrepareHosts() override {
    std::ofstream(Dir() + "/extra.conf") << "MaxJobCount=5000\n";
    for (const char* point : {"/etc/slurm", "/run/slurm"}) {
      if (!std::filesystem::exists(point)) {
        std::filesystem::create_directories(point);
        made_points_.push_back(point);
      }
    }
    std::vector<std::string> hosts(kNodes.begin(), kNodes.end());
    hosts.push_back("login");
    for (const std::string& host : hosts) {
      const std::string etc = Dir() + "/etc-" + host;
      const std::string run = Dir() + "/run-" + host;
      std::filesystem::create_directories(etc);
      std::filesystem::create_directories(run);
      std::filesystem::copy_file(Dir() + "/slurm.key", etc + "/slurm.key");
      chmod((etc + "/slurm.key").c_str(), 0600);
      hosts_->BindOnHost(host, etc, "/etc/slurm");
      hosts_->BindOnHost(host, run, "/run/slurm");
    }
  }

  void TearDown() override {
    NetnsClusterTest::TearDown();
    for (const std::string& point : made_points_) rmdir(point.c_str());
  }

  // A shell line on the login host without SLURM_CONF (PATH as Login's).
  CommandResult Bare(const std::string& line) const {
    return hosts_->Run("login", "cd " + Dir() + "/work && PATH=" + BinDir() + ":$PATH " + line);
  }
  std::string NodeCache(const std::string& node, const std::string& file) const {
    return ReadFileText(Dir() + "/run-" + node + "/conf/" + file);
  }

  std::vector<std::string> made_points_;
};

TEST_F(ConfiglessTest, NodesRunJobsWithTheFilesTheyFetched) {
  for (const std::string& node : kNodes) {
    EXPECT_FALSE(std::filesystem::exists(Dir() + "/etc-" + node + "/slurm.conf"));
    EXPECT_NE(NodeCache(node, "slurm.conf").find("enable_configless"), std::string::npos) << node;
    EXPECT_EQ(NodeCache(node, "cgroup.conf"), "ConstrainRAMSpace=yes\n") << node;
    EXPECT_EQ(NodeCache(node, "extra.conf"), "MaxJobCount=5000\n") << node;
    // The cached slurm.conf finds the host's key beside it.
    EXPECT_EQ(std::filesystem::read_symlink(Dir() + "/run-" + node + "/conf/slurm.key"),
              "/etc/slurm/slurm.key");
  }
  EXPECT_NE(ReadFileText(Dir() + "/ctl-rotactld.log").find("configless: serving 3"),
            std::string::npos);
  const std::string job = Submit("-N 4 -o slurm-%j.out", "srun hostname | sort\n");
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << State(job) << Logs();
  EXPECT_EQ(Output(job), "node1\nnode2\nnode3\nnode4\n");
}

TEST_F(ConfiglessTest, ReconfigureReachesTheNodesCopies) {
  std::ofstream(Dir() + "/cgroup.conf") << "ConstrainRAMSpace=yes\nConstrainCores=yes\n";
  std::ofstream(Dir() + "/extra.conf") << "MaxJobCount=6000\n";
  const auto asked = std::chrono::steady_clock::now();
  CommandResult r = Login("scontrol reconfigure");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The controller asks every node to register; each sees another digest and
  // fetches again (well before a heartbeat would come).
  for (const std::string& node : kNodes) {
    EXPECT_TRUE(WaitUntil(
        [&] {
          return NodeCache(node, "cgroup.conf").find("ConstrainCores=yes") != std::string::npos &&
                 NodeCache(node, "extra.conf") == "MaxJobCount=6000\n";
        },
        std::chrono::seconds(15)))
        << node << "\n"
        << Logs();
  }
  // Printed, not asserted (docs/running.md): from the command to the last copy.
  std::cerr << "reconfigure to the four nodes' copies: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - asked)
                   .count()
            << " ms\n";
  EXPECT_NE(ReadFileText(Dir() + "/node1-rotad.log").find("fetched 3 changed configuration files"),
            std::string::npos);
  // SIGHUP (systemctl reload rotad) fetches the files at once.
  ASSERT_EQ(kill(daemons_[kNodeDaemonsFrom + 1]->pid(), SIGHUP), 0);
  EXPECT_TRUE(WaitUntil(
      [&] {
        const std::string log = ReadFileText(Dir() + "/node2-rotad.log");
        return log.find("fetched 3 unchanged configuration files") != std::string::npos &&
               log.find("SIGHUP: configuration read again") != std::string::npos;
      },
      std::chrono::seconds(10)))
      << ReadFileText(Dir() + "/node2-rotad.log");
  // Jobs go on running with the new files.
  const std::string job = Submit("-o slurm-%j.out", "echo after\n");
  ASSERT_TRUE(WaitForState(job, "COMPLETED")) << State(job);
  EXPECT_EQ(Output(job), "after\n");
}

TEST_F(ConfiglessTest, ANodeRestartedWhileTheControllerIsDownStartsFromItsCopy) {
  DaemonProcess& node1 = *daemons_[kNodeDaemonsFrom];
  daemons_[1]->Stop();  // rotactld
  node1.Stop();
  daemons_[kNodeDaemonsFrom] = Start("node1", "rotad", RotadArgs());
  ASSERT_TRUE(WaitUntil(
      [&] {
        return ReadFileText(Dir() + "/node1-rotad.log").find("starting from the copy in") !=
               std::string::npos;
      },
      std::chrono::seconds(30)))
      << Logs();
  daemons_[1] = Start("ctl", "rotactld", {"-f", Conf()});
  ASSERT_TRUE(
      WaitUntil([&] { return Trim(Login("sinfo -h -N -p batch -n node1 -o %t").out) == "idle"; },
                std::chrono::seconds(30)))
      << Login("sinfo -N").out << Logs();
  // Started from the copy, it did not know the files' digest: it fetched them
  // once registered.
  EXPECT_TRUE(WaitUntil(
      [&] {
        return ReadFileText(Dir() + "/node1-rotad.log").find("changed configuration files") !=
               std::string::npos;
      },
      std::chrono::seconds(10)));
}

TEST_F(ConfiglessTest, CommandsFindTheControllerWithoutASlurmConf) {
  std::filesystem::create_directories(Dir() + "/tmp");
  chmod((Dir() + "/tmp").c_str(), 01777);
  const std::string tmp = "TMPDIR=" + Dir() + "/tmp ";
  // Nothing to go by: the usual error, naming the file Slurm's commands want.
  CommandResult r = Bare(tmp + "sinfo -h");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("/etc/slurm/slurm.conf"), std::string::npos) << r.out;

  r = Bare(tmp + "SLURM_CONF_SERVER=ctl:6817 sinfo -h -o %D");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(Trim(r.out), "4");

  // The DNS SRV record, served from the controller's host.
  std::ofstream(Dir() + "/resolv.conf") << "nameserver " << hosts_->Address("ctl") << "\n";
  auto dns = std::make_unique<DaemonProcess>(
      hosts_->On("ctl",
                 {"/usr/sbin/dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null",
                  "--no-resolv", "--no-hosts", "--bind-interfaces",
                  "--listen-address=" + hosts_->Address("ctl"), "--user=root", "--pid-file",
                  "--log-queries", "--log-facility=-", "--srv-host=_slurmctld._tcp,ctl,6817,0,0"}),
      Dir() + "/ctl-dnsmasq.log");
  hosts_->BindOnHost("login", Dir() + "/resolv.conf", "/etc/resolv.conf");
  std::string job;
  ASSERT_TRUE(WaitUntil(
      [&] {
        r = Bare(tmp + "sbatch --parsable -o slurm-%j.out --wrap='srun echo found'");
        job = std::string(Trim(r.out));
        return r.exit_code == 0;
      },
      std::chrono::seconds(10)))
      << r.out << ReadFileText(Dir() + "/ctl-dnsmasq.log");
  ASSERT_TRUE(WaitUntil(
      [&] { return Trim(Bare(tmp + "squeue -h -t all -o %T -j " + job).out) == "COMPLETED"; },
      std::chrono::seconds(60)))
      << Bare(tmp + "squeue -t all -j " + job).out;
  EXPECT_NE(ReadFileText(Dir() + "/ctl-dnsmasq.log").find("query[SRV] _slurmctld._tcp"),
            std::string::npos)
      << ReadFileText(Dir() + "/ctl-dnsmasq.log");
  // srun in the job, on a node without SLURM_CONF or /etc/slurm/slurm.conf,
  // read the copy of the node's rotad.
  EXPECT_EQ(Output(job), "found\n");
  // Each command removed the files it fetched.
  EXPECT_TRUE(std::filesystem::is_empty(Dir() + "/tmp"));
}

}  // namespace
}  // namespace rota::testing
