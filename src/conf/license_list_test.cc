#include "conf/license_list.h"

#include <gtest/gtest.h>

#include "testing/config_files.h"

namespace rota::conf {
namespace {

TEST(LicenseListTest, NamesWithCountsOrOne) {
  Result<LicenseCounts> l = ParseLicenseList("foo:4,bar,MatLab*2");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(*l, (LicenseCounts{{"foo", 4}, {"bar", 1}, {"MatLab", 2}}));
  EXPECT_EQ(FormatLicenseList(*l), "MatLab:2,bar:1,foo:4");
  EXPECT_TRUE(ParseLicenseList("")->empty());
}

TEST(LicenseListTest, RefusesWhatIsNotALicenseList) {
  for (const char* bad : {"foo:x", ":3", "foo:1,foo:2", "foo:-1", "foo:99999999999"}) {
    EXPECT_FALSE(ParseLicenseList(bad).ok()) << bad;
  }
}

TEST(LicenseListTest, SlurmConfLicenses) {
  rota::testing::TempDir dir;
  auto loaded = rota::testing::LoadConfigFiles(
      dir, {std::string(rota::testing::kMinimalHead) + "Licenses=fluent:3,ansys\nNodeName=n1\n"});
  ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
  EXPECT_EQ((*loaded.config)->settings.licenses, (LicenseCounts{{"ansys", 1}, {"fluent", 3}}));
  EXPECT_EQ(loaded.Text(), "");
  rota::testing::TempDir dir2;
  auto bad = rota::testing::LoadConfigFiles(
      dir2, {std::string(rota::testing::kMinimalHead) + "Licenses=fluent:many\nNodeName=n1\n"});
  EXPECT_FALSE(bad.config.ok());
  EXPECT_NE(bad.Text().find("slurm.conf line 4: Licenses=fluent:many is not a license list"),
            std::string::npos)
      << bad.Text();
}

}  // namespace
}  // namespace rota::conf
