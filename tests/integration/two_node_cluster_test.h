#pragma once
// The fixture of the end-to-end tests: a real rotactld and two real rotad
// (nodes 1 and 2, cgroups v1, fake GPUs) on this host, started for each test
// and stopped after it; their logs are printed when a test fails.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"

namespace rota::testing {

class TwoNodeClusterTest : public ::testing::Test {
 protected:
  // More slurm.conf lines for the fixtures that need them.
  virtual std::string Settings() const { return ""; }
  // gres.conf for the fixtures that need another (empty: the cluster's, its
  // GPUs without Cores=); called once cluster_ exists, before any daemon starts.
  virtual std::string GresConf() const { return ""; }
  // More environment for rotad of node `node` (1 or 2; NAME=value words);
  // called once cluster_ exists, before that node starts.
  virtual std::vector<std::string> NodeEnvironment(int /*node*/) const { return {}; }
  // cgroup.conf for the fixtures that need another (empty: the cluster's
  // cgroup v1 one, constraining cores, memory and devices).
  virtual std::string CgroupConf() const { return ""; }

  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests need root (cgroups, mknod, setuid)";
    uint16_t port = FreeLoopbackPort();
    cluster_ = std::make_unique<NodedCluster>(port, Settings());
    if (std::string gres = GresConf(); !gres.empty()) cluster_->dir().Write("gres.conf", gres);
    if (!CgroupConf().empty()) cluster_->dir().Write("cgroup.conf", CgroupConf());
    ctld_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotactld", "-f", cluster_->conf()},
        (cluster_->dir().path() / "rotactld.log").string());
    ASSERT_TRUE(WaitUntil([&] { return cluster_->Run("sinfo -h -o %t").exit_code == 0; }))
        << ctld_->Log();
    ASSERT_TRUE(cluster_->StartNode(1, NodeEnvironment(1))) << cluster_->NodeLogs();
    ASSERT_TRUE(cluster_->StartNode(2, NodeEnvironment(2))) << cluster_->NodeLogs();
    ASSERT_TRUE(WaitUntil([&] { return cluster_->Run("sinfo -h -o %t").out == "idle\n"; }))
        << cluster_->Run("sinfo").out << cluster_->NodeLogs();
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "rotactld log:\n" << ctld_->Log() << "rotad logs:\n" << cluster_->NodeLogs();
    }
    // Nodes first (they kill their jobs and report), then the controller.
    cluster_.reset();
    ctld_.reset();
  }

  // Submits a batch script (its text, after a #!/bin/sh line that puts the
  // built commands first in PATH and sets SLURM_CONF) with `options`, run
  // in the work directory; returns the job id.
  std::string SubmitScript(const std::string& options, const std::string& script) {
    const std::string path =
        cluster_->work_dir() + "/job" + std::to_string(++submitted_scripts_) + ".sh";
    std::ofstream(path) << "#!/bin/sh\nexport PATH=" << BinDir()
                        << ":$PATH\nexport SLURM_CONF=" << cluster_->conf() << "\n"
                        << script;
    chmod(path.c_str(), 0755);
    CommandResult r = cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " " +
                                    options + " " + path);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return std::string(Trim(r.out));
  }

  // Polls squeue until job `job` is in `state` ("COMPLETED", "RUNNING", ...).
  bool WaitForState(const std::string& job, const std::string& state) {
    return WaitUntil(
        [&] { return Trim(cluster_->Run("squeue -h -t all -o %T -j " + job).out) == state; },
        std::chrono::seconds(60));
  }
  // What job `job` wrote to its default output file (slurm-JOB.out in the work dir).
  std::string Output(const std::string& job) const {
    return ReadFileText(cluster_->work_dir() + "/slurm-" + job + ".out");
  }

  std::unique_ptr<NodedCluster> cluster_;
  std::unique_ptr<DaemonProcess> ctld_;
  int submitted_scripts_ = 0;
};

}  // namespace rota::testing
