#include "ctld/ha/controller_role.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rota::ctld {
namespace {

conf::ClusterConfig WithControllers(std::vector<std::string> names) {
  conf::ClusterConfig config;
  config.settings.controllers.clear();
  for (std::string& name : names)
    config.settings.controllers.push_back({.name = std::move(name), .address = ""});
  return config;
}

TEST(ControllerIndexTest, TheLineOfThisHostShortNamesMatchingLongOnes) {
  const conf::ClusterConfig two = WithControllers({"ctl.example.org", "ctl2"});
  EXPECT_EQ(ControllerIndex(two, "ctl").value(), 0u);
  EXPECT_EQ(ControllerIndex(two, "ctl2.example.org").value(), 1u);
  Result<size_t> none = ControllerIndex(two, "login");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(),
              ::testing::HasSubstr("this host (login) is none of the SlurmctldHost lines"));
  // One controller runs wherever it is started.
  EXPECT_EQ(ControllerIndex(WithControllers({"ctl"}), "anywhere").value(), 0u);
}

}  // namespace
}  // namespace rota::ctld
