#include "conf/topology_conf_parser.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

using rota::testing::kMinimalHead;
using rota::testing::LoadConfigFiles;
using rota::testing::TempDir;

const std::string kTreeHead = std::string(kMinimalHead) +
                              "TopologyPlugin=topology/tree\n"
                              "NodeName=n[1-8]\n";

TEST(TopologyConfParserTest, ThreeLevelTreeGetsLevels) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {kTreeHead, "", "",
                                      "SwitchName=s1 Nodes=n[1-4]\n"
                                      "SwitchName=s2 Nodes=n[5-8] LinkSpeed=100\n"
                                      "SwitchName=mid Switches=s[1-2]\n"
                                      "SwitchName=top Switches=mid\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  const Topology& t = (*loaded.config)->topology;
  ASSERT_EQ(t.switches.size(), 4u);
  EXPECT_EQ(t.switches[0].level, 0);
  EXPECT_EQ(t.switches[2].level, 1);
  EXPECT_EQ(t.switches[3].level, 2);
  EXPECT_EQ(t.switches[t.leaf_of.at("n6")].name, "s2");
}

struct TopologyErrorCase {
  std::string topology;
  std::string expected;
};

void PrintTo(const TopologyErrorCase& c, std::ostream* os) { *os << c.expected; }

class TopologyErrorTest : public ::testing::TestWithParam<TopologyErrorCase> {};

TEST_P(TopologyErrorTest, IsReportedAtItsLine) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {kTreeHead, "", "", GetParam().topology});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find(GetParam().expected), std::string::npos) << loaded.Text();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopologyErrorTest,
    ::testing::Values(
        TopologyErrorCase{"SwitchName=a Nodes=n[1-4]\nSwitchName=b Nodes=n[4-8]\n",
                          "topology.conf line 2: node n4 is under two leaf switches (a and b)"},
        TopologyErrorCase{"SwitchName=a Nodes=n[1-8]\nSwitchName=top Switches=a,ghost\n",
                          "topology.conf line 2: switch top names switch ghost, which is not "
                          "defined"},
        TopologyErrorCase{"SwitchName=a Nodes=n[1-9]\n",
                          "topology.conf line 1: switch a names n9 that no NodeName line defines"},
        TopologyErrorCase{"SwitchName=a Nodes=n[1-6]\n",
                          "topology.conf: n[7-8] are under no leaf switch"},
        TopologyErrorCase{"SwitchName=a Nodes=n[1-8]\nSwitchName=x Switches=y\n"
                          "SwitchName=y Switches=x\n",
                          "is its own descendant (a cycle)"},
        TopologyErrorCase{"SwitchName=a Nodes=n[1-8]\nSwitchName=a Switches=a\n",
                          "topology.conf line 2: switch a is already defined at line 1"},
        TopologyErrorCase{"Nodes=n[1-8]\n", "topology.conf line 1: expected SwitchName="}));

TEST(TopologyConfParserTest, TreePluginRequiresTheFile) {
  TempDir dir;
  auto loaded = LoadConfigFiles(dir, {kTreeHead});
  EXPECT_FALSE(loaded.config.ok());
  EXPECT_NE(loaded.Text().find("topology.conf: cannot read file"), std::string::npos)
      << loaded.Text();
}

TEST(TopologyConfParserTest, IgnoredWithoutTreePlugin) {
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, {std::string(kMinimalHead) + "NodeName=n1\n", "", "", "garbage line\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_TRUE((*loaded.config)->topology.empty());
}

}  // namespace
}  // namespace rota::conf
