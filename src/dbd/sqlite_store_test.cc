// What only the SQLite backend does (WAL, PRAGMA user_version); the
// contract both backends keep is in accounting_store_test.cc.
#include "dbd/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "dbd/store_test_support.h"

namespace rota::dbd {
namespace {

class SqliteStoreTest : public StoreFixture, public ::testing::Test {};

TEST_F(SqliteStoreTest, CreatesSchemaInWalModeAndReopens) {
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->SchemaVersion(), SqliteStore::kSchemaVersion);
    ASSERT_TRUE(store->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);

  auto again = OpenStore();  // Opening an existing store migrates nothing and loses nothing.
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(All(*again).size(), 1u);
}

TEST_F(SqliteStoreTest, RefusesANewerSchema) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto store = SqliteStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(SqliteStoreTest, MigratesAVersionOneDatabaseKeepingItsJobs) {
  {
    // A database as the first schema left it.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE job_attempts (cluster TEXT NOT NULL, job_id INTEGER NOT "
                           "NULL, restarts INTEGER NOT NULL, user_name TEXT NOT NULL, account "
                           "TEXT NOT NULL, partition TEXT NOT NULL, state INTEGER NOT NULL, ended "
                           "INTEGER NOT NULL, submit_time INTEGER NOT NULL, start_time INTEGER "
                           "NOT NULL, end_time INTEGER NOT NULL, record BLOB NOT NULL, PRIMARY "
                           "KEY (cluster, job_id, restarts)); PRAGMA user_version = 1;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    // Job 7, task 2 of array 5: only its record says so.
    wire::AccountingJob task = Attempt(7, 0, wire::JOB_STATE_COMPLETED, 100, 200);
    task.set_array_job_id(5);
    task.set_array_task_id(2);
    const std::string blob = task.SerializeAsString();
    sqlite3_stmt* insert = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "INSERT INTO job_attempts VALUES ('c', 7, 0, 'bob', 'chem', "
                                 "'batch', 3, 1, 90, 100, 200, ?1)",
                                 -1, &insert, nullptr),
              SQLITE_OK);
    sqlite3_bind_blob(insert, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    auto v1 = OpenStore();  // Migrates to the current version...
    ASSERT_NE(v1, nullptr);
    EXPECT_EQ(v1->SchemaVersion(), SqliteStore::kSchemaVersion);
    ASSERT_TRUE(v1->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  }
  auto store = OpenStore();  // ...once.
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(All(*store).size(), 2u);
  // Version 4 read the array job from the record stored before it.
  wire::QueryJobsRequest by_array;
  by_array.add_job_ids(5);
  ASSERT_EQ(store->QueryJobs(by_array)->size(), 1u);
  EXPECT_EQ(store->QueryJobs(by_array)->at(0).job_id(), 7u);
  wire::AcctEntity qos;
  qos.set_kind("qos");
  qos.set_name("high");
  EXPECT_TRUE(store->AddEntities({qos}).ok());
}

// `sacct -j` names no cluster: the jobs are found in every cluster (the store
// seeks them cluster by cluster through the primary key).
TEST_F(SqliteStoreTest, JobsByIdAreFoundInEveryCluster) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AccountingJob> jobs;
  const char* clusters[] = {"", "alpha", "beta", "gamma"};
  for (uint32_t id = 1; id <= 40; ++id) {
    auto j = Attempt(id, 0, wire::JOB_STATE_COMPLETED, 100, 200);
    j.set_cluster(clusters[id % 4]);
    jobs.push_back(j);
  }
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());
  wire::QueryJobsRequest query;
  for (uint32_t id : {4u, 9u, 14u, 39u, 41u}) query.add_job_ids(id);
  auto found = store->QueryJobs(query);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::vector<std::pair<uint32_t, std::string>> got;
  for (const auto& j : *found) got.emplace_back(j.job_id(), j.cluster());
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, std::string>>{
                     {4, ""}, {9, "alpha"}, {14, "beta"}, {39, "gamma"}}));
  query.set_cluster("beta");
  found = store->QueryJobs(query);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].job_id(), 14u);
}

}  // namespace
}  // namespace rota::dbd
