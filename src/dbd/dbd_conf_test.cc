#include "dbd/dbd_conf.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

TEST(DbdConfTest, ReadsThePostgresqlSettings) {
  testing::TempDir dir;
  std::string path = dir.Write("slurmdbd.conf",
                               "# accounting storage\n"
                               "StorageType=accounting_storage/pgsql\n"
                               "StorageHost=db.example StoragePort=6543\n"
                               "StorageUser=slurm\n"
                               "StoragePass=\"s3cret word\"\n"
                               "StorageLoc=acct\n"
                               "DbdHost=head DbdPort=7031\n");
  conf::Diagnostics diags;
  DbdConf c = LoadDbdConf(path, true, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  EXPECT_EQ(c.storage, StorageKind::kPgsql);
  EXPECT_EQ(c.storage_host, "db.example");
  EXPECT_EQ(c.storage_port, 6543);
  EXPECT_EQ(c.storage_user, "slurm");
  EXPECT_EQ(c.storage_pass, "s3cret word");
  EXPECT_EQ(c.storage_loc, "acct");
  EXPECT_EQ(c.dbd_host, "head");
  EXPECT_EQ(c.dbd_port, 7031);
}

TEST(DbdConfTest, PrivateDataIsReadWhenSet) {
  testing::TempDir dir;
  conf::Diagnostics diags;
  DbdConf c = LoadDbdConf(dir.Write("slurmdbd.conf", "PrivateData=Jobs,users\n"), true, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  EXPECT_EQ(c.private_data, (std::vector<std::string>{"jobs", "users"}));
  EXPECT_FALSE(
      LoadDbdConf(dir.Write("unset.conf", "DbdPort=7031\n"), true, diags).private_data.has_value());
  conf::Diagnostics bad;
  LoadDbdConf(dir.Write("bad.conf", "PrivateData=jobs,secrets\n"), true, bad);
  EXPECT_TRUE(bad.has_errors());
}

TEST(DbdConfTest, DefaultsToSqliteWhenThereIsNoFile) {
  conf::Diagnostics diags;
  DbdConf c = LoadDbdConf("/nonexistent/slurmdbd.conf", false, diags);
  EXPECT_TRUE(diags.all().empty()) << diags.ToString();
  EXPECT_EQ(c.storage, StorageKind::kSqlite);
  EXPECT_FALSE(c.storage_port.has_value());

  conf::Diagnostics required;
  LoadDbdConf("/nonexistent/slurmdbd.conf", true, required);
  EXPECT_TRUE(required.has_errors());
}

TEST(DbdConfTest, ErrorsNameFileAndLine) {
  testing::TempDir dir;
  std::string path = dir.Write("slurmdbd.conf",
                               "StorageType=accounting_storage/mysql\n"
                               "StoragePort=99999\n"
                               "PurgeJobAfter=12month\n"
                               "Colour=blue\n");
  conf::Diagnostics diags;
  LoadDbdConf(path, true, diags);
  ASSERT_EQ(diags.error_count(), 2) << diags.ToString();
  const auto& all = diags.all();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].where.line, 1);
  EXPECT_NE(all[0].ToString().find(path + " line 1"), std::string::npos) << all[0].ToString();
  EXPECT_NE(all[0].message.find("accounting_storage/mysql is not supported"), std::string::npos);
  EXPECT_EQ(all[1].where.line, 2);
  EXPECT_EQ(all[1].severity, conf::Severity::kError);
  EXPECT_EQ(all[2].severity, conf::Severity::kWarning);
  EXPECT_EQ(all[2].message, "PurgeJobAfter is not used by rotadbd (ignored)");
  EXPECT_EQ(all[3].message, "unknown key Colour (ignored)");
}

TEST(DbdConfTest, LivesBesideSlurmConf) {
  EXPECT_EQ(DbdConfPathBeside("/etc/slurm/slurm.conf"), "/etc/slurm/slurmdbd.conf");
  EXPECT_EQ(DbdConfPathBeside("slurm.conf"), "slurmdbd.conf");
}

}  // namespace
}  // namespace rota::dbd
