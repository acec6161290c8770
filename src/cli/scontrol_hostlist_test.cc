#include "cli/scontrol_hostlist.h"

#include <gtest/gtest.h>

#include <sstream>

namespace rota::cli {
namespace {

std::string Show(const std::string& entity, const std::string& expr, int* code = nullptr) {
  std::ostringstream out, err;
  int rc = ShowHostlist(entity, {expr}, out, err);
  if (code != nullptr) *code = rc;
  return out.str() + err.str();
}

TEST(ScontrolHostlistUnitTest, ExpandsAndCompresses) {
  EXPECT_EQ(Show("hostnames", "rack[1-2]-n[01-02]"),
            "rack1-n01\nrack1-n02\nrack2-n01\nrack2-n02\n");
  EXPECT_EQ(Show("hostlist", "rack1-n01,rack1-n02,rack2-n01"), "rack1-n[01-02],rack2-n01\n");
  EXPECT_EQ(Show("hostlistsorted", "n10,n9,n8"), "n[8-10]\n");
}

TEST(ScontrolHostlistUnitTest, ErrorsGoToErrWithExitOne) {
  int code = 0;
  EXPECT_NE(Show("hostnames", "gpu[01-", &code).find("scontrol: error: "), std::string::npos);
  EXPECT_EQ(code, 1);
}

TEST(ScontrolHostlistUnitTest, HostnamesDefaultsToTheJobNodeListThenTheNodeList) {
  EXPECT_EQ(DefaultHostnamesList("n[1-2]", "m[1-2]"), "n[1-2]");
  EXPECT_EQ(DefaultHostnamesList(nullptr, "m[1-2]"), "m[1-2]");
  EXPECT_EQ(DefaultHostnamesList("", "m[1-2]"), "m[1-2]");
  EXPECT_EQ(DefaultHostnamesList("n1", nullptr), "n1");
  EXPECT_EQ(DefaultHostnamesList(nullptr, nullptr), "");
  EXPECT_EQ(DefaultHostnamesList("", ""), "");
}

}  // namespace
}  // namespace rota::cli
