#pragma once
// TwoNodeClusterTest with rotadbd: the controller sends its accounting to a
// real rotadbd (SQLite in the test's directory), started after the cluster
// and stopped after it; its log is printed when a test fails.

#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota::testing {

class AccountedClusterTest : public TwoNodeClusterTest {
 protected:
  // More slurm.conf lines beside the accounting ones.
  virtual std::string MoreSettings() const { return ""; }

  std::string Settings() const final { return AccountingConf(dbd_port_) + MoreSettings(); }
  void SetUp() override {
    TwoNodeClusterTest::SetUp();
    if (HasFatalFailure()) return;
    dbd_ = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotadbd", "-f", cluster_->conf(), "-s",
                                 (cluster_->dir().path() / "dbd").string()},
        (cluster_->dir().path() / "rotadbd.log").string());
    ASSERT_TRUE(WaitUntil([&] { return LoopbackAccepting(dbd_port_); })) << dbd_->Log();
  }
  void TearDown() override {
    if (HasFailure() && dbd_) std::cerr << "rotadbd log:\n" << dbd_->Log();
    TwoNodeClusterTest::TearDown();
    dbd_.reset();
  }

  // `sacct ARGS` once `rows` of its lines end with `ending` (or after a few
  // seconds): the controller sends a job's records to rotadbd as the job
  // starts and ends, so a workflow tool may return before the last arrived.
  std::string SacctOnceItHasRows(const std::string& args, size_t rows,
                                 std::string_view ending = "") {
    std::string out;
    WaitUntil([&] {
      out = cluster_->Run("sacct " + args).out;
      size_t ended = 0;
      for (std::string_view line : Split(Trim(out), '\n')) ended += line.ends_with(ending);
      return ended >= rows;
    });
    return out;
  }

  uint16_t dbd_port_ = FreeLoopbackPort();
  std::unique_ptr<DaemonProcess> dbd_;
};

}  // namespace rota::testing
