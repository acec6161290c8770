#pragma once
// TwoNodeClusterTest with rotadbd: the controller sends its accounting to a
// real rotadbd (SQLite in the test's directory), started after the cluster
// and stopped after it; its log is printed when a test fails.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

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

  uint16_t dbd_port_ = FreeLoopbackPort();
  std::unique_ptr<DaemonProcess> dbd_;
};

}  // namespace rota::testing
