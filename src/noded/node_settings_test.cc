#include "noded/node_settings.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::noded {
namespace {

using testing::ConfigFiles;
using testing::LoadConfigFiles;
using testing::TempDir;

TEST(NodeSettingsTest, PortAddressAndSpoolComeFromSlurmConf) {
  TempDir dir;
  auto loaded = LoadConfigFiles(
      dir, ConfigFiles(std::string(testing::kMinimalHead) +
                       "SlurmctldHost=ctl(10.0.0.1)\nSlurmctldPort=7000\nSlurmdPort=7001\n"
                       "SlurmdSpoolDir=/var/spool/rota/%n\n"
                       "NodeName=a1 NodeAddr=10.1.2.3 Port=7100\n"
                       "NodeName=b1 NodeHostname=hostb\n"
                       "PartitionName=p Nodes=ALL\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  auto a = ResolveNodeSettings(**loaded.config, "a1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port, 7100);
  EXPECT_EQ(a->listen_address, "10.1.2.3");
  EXPECT_EQ(a->spool_dir, "/var/spool/rota/a1");
  ASSERT_EQ(a->controllers.size(), 2u);  // kMinimalHead names a controller "ctl" first.
  EXPECT_EQ(a->controllers[1].host, "10.0.0.1");
  EXPECT_EQ(a->controllers[1].port, 7000);
  auto b = ResolveNodeSettings(**loaded.config, "b1");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->port, 7001);
  // NodeAddr defaults to "hostb", a name that resolves nowhere here: every address.
  EXPECT_EQ(b->listen_address, "0.0.0.0");
  EXPECT_EQ(ListenAddressFor("localhost"), "127.0.0.1");
  EXPECT_EQ(ListenAddressFor("::1"), "::1");
  EXPECT_EQ(ResolveNodeSettings(**loaded.config, "zz").status().code(), StatusCode::kNotFound);
}

TEST(NodeSettingsTest, HeartbeatsWellInsideSlurmdTimeout) {
  using std::chrono::seconds;
  EXPECT_EQ(HeartbeatInterval(300, seconds(30)), seconds(30));
  EXPECT_EQ(HeartbeatInterval(6, seconds(30)), seconds(2));
  EXPECT_EQ(HeartbeatInterval(2, seconds(30)), seconds(1));
  EXPECT_EQ(HeartbeatInterval(0, seconds(30)), seconds(30));  // No timeout at all.
  TempDir dir;
  auto loaded =
      LoadConfigFiles(dir, ConfigFiles(std::string(testing::kMinimalHead) +
                                       "SlurmdTimeout=9\nSlurmdParameters=config_overrides\n"
                                       "NodeName=a1\nPartitionName=p Nodes=ALL\n"));
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  auto a = ResolveNodeSettings(**loaded.config, "a1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->heartbeat_interval, seconds(3));
  EXPECT_TRUE(a->config_overrides);
}

TEST(NodeSettingsTest, ExpandsNodePatterns) {
  conf::NodeConfig node;
  node.name = "gpu07";
  node.hostname = "host7";
  EXPECT_EQ(ExpandNodePattern("/s/%n/%h/%%/%x", node), "/s/gpu07/host7/%/%x");
  EXPECT_TRUE(IsNumericAddress("::1"));
  EXPECT_FALSE(IsNumericAddress("localhost"));
}

}  // namespace
}  // namespace rota::noded
