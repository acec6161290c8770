#pragma once

// A fixture for tests of AccountingStorageEnforce: a real rotactld enforcing
// associations, limits and QoS from a real rotadbd on loopback, driven through
// the built commands. The test starts rotadbd (dbd_.Start()) when it is ready.

#include <gtest/gtest.h>

#include <string>

#include "tests/integration/controller_calls.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/dbd_process.h"

namespace rota::testing {

inline constexpr char kInvalidAccount[] =
    "sbatch: error: Batch job submission failed: Invalid account or account/partition combination "
    "specified\n";

class EnforcedAccountingTest : public ::testing::Test {
 protected:
  EnforcedAccountingTest()
      : dbd_port_(FreeLoopbackPort()),
        ctld_(AccountingConf(dbd_port_) + "AccountingStorageEnforce=associations,limits,qos\n"),
        dbd_(ctld_, dbd_port_) {}

  void RegisterNodes() { RegisterFakeNodes(ctld_, {"n1", "n2", "n3", "n4"}); }
  std::string SqueueUntil(const std::string& job, const std::string& format,
                          const std::string& expected) {
    return testing::SqueueUntil(ctld_, job, format, expected);
  }
  void Sacctmgr(const std::string& args) {
    CommandResult r = ctld_.Run("sacctmgr -i " + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.out;
  }

  uint16_t dbd_port_;
  ControllerProcess ctld_;
  DbdProcess dbd_;
};

}  // namespace rota::testing
