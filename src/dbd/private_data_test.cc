#include "dbd/private_data.h"

#include <gtest/gtest.h>

#include "dbd/sqlite_store.h"
#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

wire::AcctEntity User(const std::string& name, const std::string& level) {
  wire::AcctEntity e;
  e.set_kind("user");
  e.set_name(name);
  (*e.mutable_fields())["AdminLevel"] = level;
  (*e.mutable_fields())["DefaultAccount"] = "root";
  return e;
}

TEST(PrivateDataTest, ReadsTheKeysValues) {
  PrivateData p = PrivateData::From({"usage", "jobs"});
  EXPECT_TRUE(p.jobs);
  EXPECT_FALSE(p.users);
  EXPECT_FALSE(PrivateData::From({}).jobs);
  EXPECT_TRUE(PrivateData::From({"users"}).users);
}

TEST(PrivateDataTest, RootSlurmUserAndOperatorsSeeEverything) {
  testing::TempDir dir;
  auto store = SqliteStore::Open((dir.path() / "acct.sqlite").string());
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)
                  ->AddEntities(
                      {User("op", "Operator"), User("boss", "Administrator"), User("ann", "None")})
                  .ok());
  EXPECT_TRUE(SeesEverything(0, "root", 500, **store));
  EXPECT_TRUE(SeesEverything(500, "slurm", 500, **store));
  EXPECT_TRUE(SeesEverything(1001, "op", 500, **store));
  EXPECT_TRUE(SeesEverything(1002, "boss", 500, **store));
  EXPECT_FALSE(SeesEverything(1003, "ann", 500, **store));
  EXPECT_FALSE(SeesEverything(1004, "stranger", 500, **store));
  EXPECT_FALSE(SeesEverything(1005, "", 500, **store));
}

TEST(PrivateDataTest, KeepsOnlyTheCallersJobs) {
  std::vector<wire::AccountingJob> jobs(3);
  jobs[0].set_job_id(1);
  jobs[0].set_uid(1001);
  jobs[1].set_job_id(2);
  jobs[1].set_uid(1002);
  jobs[2].set_job_id(3);
  jobs[2].set_uid(1001);
  KeepOwnJobs(1001, jobs);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].job_id(), 1u);
  EXPECT_EQ(jobs[1].job_id(), 3u);
}

}  // namespace
}  // namespace rota::dbd
