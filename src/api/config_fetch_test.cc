#include "api/config_fetch.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace rota::api {
namespace {

TEST(ConfigFetchTest, ConfServersAsSlurmdTakesThem) {
  auto one = ParseConfServers("ctl");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<ConfServer>{{"ctl", 6817}}));
  auto two = ParseConfServers("ctl:7000, ctl2");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<ConfServer>{{"ctl", 7000}, {"ctl2", 6817}}));
  auto v6 = ParseConfServers("[fd00::1]:7001,[fd00::2]");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(*v6, (std::vector<ConfServer>{{"fd00::1", 7001}, {"fd00::2", 6817}}));
  for (const char* bad : {"", "ctl:", "ctl:x", "ctl:70000", ":6817", "ctl,,ctl2", "[::1]x"}) {
    EXPECT_FALSE(ParseConfServers(bad).ok()) << bad;
  }
}

// A DNS answer as a server sends it: the question, then SRV records.
std::vector<unsigned char> SrvAnswer(
    const std::vector<std::tuple<uint16_t, uint16_t, uint16_t, std::string>>& records) {
  std::vector<unsigned char> m = {
      0x12, 0x34, 0x81, 0x80, 0, 1, 0, static_cast<unsigned char>(records.size()), 0, 0, 0, 0};
  auto name = [&](const std::string& dotted) {
    size_t start = 0;
    while (start < dotted.size()) {
      size_t dot = dotted.find('.', start);
      if (dot == std::string::npos) dot = dotted.size();
      m.push_back(static_cast<unsigned char>(dot - start));
      m.insert(m.end(), dotted.begin() + start, dotted.begin() + dot);
      start = dot + 1;
    }
    m.push_back(0);
  };
  auto u16 = [&](uint16_t v) {
    m.push_back(v >> 8);
    m.push_back(v & 0xff);
  };
  name("_slurmctld._tcp");
  u16(33);
  u16(1);
  for (const auto& [priority, weight, port, target] : records) {
    u16(0xc00c);  // The question's name
    u16(33);
    u16(1);
    u16(0);
    u16(3600);
    const size_t length_at = m.size();
    u16(0);
    u16(priority);
    u16(weight);
    u16(port);
    name(target);
    const size_t length = m.size() - length_at - 2;
    m[length_at] = static_cast<unsigned char>(length >> 8);
    m[length_at + 1] = static_cast<unsigned char>(length & 0xff);
  }
  return m;
}

TEST(ConfigFetchTest, SrvRecordsPrimaryFirst) {
  auto answer = SrvAnswer({{10, 0, 6817, "backup.example"}, {0, 0, 6818, "primary.example"}});
  EXPECT_EQ(ParseSrvAnswer(answer.data(), static_cast<int>(answer.size())),
            (std::vector<ConfServer>{{"primary.example", 6818}, {"backup.example", 6817}}));
  // Equal priority: the heavier first.
  answer = SrvAnswer({{5, 1, 6817, "light"}, {5, 9, 6817, "heavy"}});
  EXPECT_EQ(ParseSrvAnswer(answer.data(), static_cast<int>(answer.size())),
            (std::vector<ConfServer>{{"heavy", 6817}, {"light", 6817}}));
  // No answer, a failed lookup (-1), or bytes cut short give nothing.
  EXPECT_TRUE(ParseSrvAnswer(answer.data(), -1).empty());
  EXPECT_TRUE(ParseSrvAnswer(answer.data(), 20).empty());
  answer = SrvAnswer({});
  EXPECT_TRUE(ParseSrvAnswer(answer.data(), static_cast<int>(answer.size())).empty());
}

TEST(ConfigFetchTest, BootstrapCredentialFollowsTheKey) {
  rota::testing::TempDir etc;
  EXPECT_EQ(BootstrapAuthSettings(etc.path().string()).auth_type, "auth/munge");
  std::ofstream(etc.path() / "slurm.key") << "key";
  auth::AuthSettings s = BootstrapAuthSettings(etc.path().string());
  EXPECT_EQ(s.auth_type, "auth/slurm");
  EXPECT_EQ(s.key_path, (etc.path() / "slurm.key").string());
}

TEST(ConfigFetchTest, DigestChangesWithAnyNameOrContent) {
  const std::vector<conf::ConfigFileCopy> a = {{"slurm.conf", "A=1\n"}, {"gres.conf", ""}};
  const std::string digest = ConfigFilesDigest(a);
  EXPECT_EQ(digest.size(), 64u);
  EXPECT_EQ(ConfigFilesDigest(a), digest);
  EXPECT_NE(ConfigFilesDigest({{"slurm.conf", "A=2\n"}, {"gres.conf", ""}}), digest);
  EXPECT_NE(ConfigFilesDigest({{"slurm.conf", "A=1\n"}, {"cgroup.conf", ""}}), digest);
  // Bytes moved from one file to the next are another set.
  EXPECT_NE(ConfigFilesDigest({{"slurm.conf", "A=1"}, {"gres.conf", "\n"}}), digest);
  wire::ConfigFilesResponse w = ConfigFilesToWire(a);
  EXPECT_EQ(w.digest(), digest);
  EXPECT_EQ(ConfigFilesFromWire(w), a);
}

}  // namespace
}  // namespace rota::api
