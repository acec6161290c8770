#include "dbd/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "testing/temp_dir.h"

namespace rota::dbd {
namespace {

wire::AccountingJob Attempt(uint32_t id, uint32_t restarts, wire::JobState state, int64_t start,
                            int64_t end) {
  wire::AccountingJob j;
  j.set_cluster("c");
  j.set_job_id(id);
  j.set_restarts(restarts);
  j.set_name("job" + std::to_string(id));
  j.set_user(id % 2 == 0 ? "alice" : "bob");
  j.set_account(id % 2 == 0 ? "phys" : "chem");
  j.set_partition("batch");
  j.set_state(state);
  j.set_ended(end > 0);
  j.set_submit_time(start - 10);
  j.set_start_time(start);
  j.set_end_time(end);
  j.set_alloc_tres("cpu=1,mem=1G,node=1,billing=1,gres/gpu=2");
  return j;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> OpenStore() {
    auto store = SqliteStore::Open(path_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::vector<wire::AccountingJob> All(SqliteStore& store, bool all_attempts = false) {
    wire::QueryJobsRequest q;
    q.set_all_attempts(all_attempts);
    auto jobs = store.QueryJobs(q);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    return jobs.ok() ? *jobs : std::vector<wire::AccountingJob>{};
  }

  testing::TempDir dir_;
  std::string path_ = (dir_.path() / "acct.sqlite").string();
};

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

TEST_F(SqliteStoreTest, UpsertIsIdempotentAndAStartNeverUndoesAnEnd) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto start = Attempt(7, 0, wire::JOB_STATE_RUNNING, 100, 0);
  auto end = Attempt(7, 0, wire::JOB_STATE_COMPLETED, 100, 160);
  ASSERT_TRUE(store->UpsertJobs({start, end}).ok());
  ASSERT_TRUE(store->UpsertJobs({start, end}).ok());  // Delivered twice.
  ASSERT_TRUE(store->UpsertJobs({start}).ok());       // A late start record.
  auto jobs = All(*store, true);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state(), wire::JOB_STATE_COMPLETED);
  EXPECT_EQ(jobs[0].end_time(), 160);
}

TEST_F(SqliteStoreTest, EachAttemptIsItsOwnRecordAndTheLastIsTheDefault) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->UpsertJobs({Attempt(3, 0, wire::JOB_STATE_REQUEUED, 100, 150),
                                Attempt(3, 1, wire::JOB_STATE_COMPLETED, 200, 260),
                                Attempt(4, 0, wire::JOB_STATE_FAILED, 110, 120)})
                  .ok());
  auto all = All(*store, true);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].state(), wire::JOB_STATE_REQUEUED);
  EXPECT_EQ(all[1].state(), wire::JOB_STATE_COMPLETED);
  auto last = All(*store);
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].job_id(), 3u);
  EXPECT_EQ(last[0].restarts(), 1u);
  EXPECT_EQ(last[1].job_id(), 4u);
}

TEST_F(SqliteStoreTest, FiltersByUserAccountStateIdAndWindow) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t id = 1; id <= 10; ++id) {
    jobs.push_back(Attempt(id, 0, id == 5 ? wire::JOB_STATE_FAILED : wire::JOB_STATE_COMPLETED,
                           1000 * id, 1000 * id + 500));
  }
  jobs.push_back(Attempt(11, 0, wire::JOB_STATE_RUNNING, 11000, 0));
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());

  wire::QueryJobsRequest q;
  q.add_users("alice");
  EXPECT_EQ(store->QueryJobs(q)->size(), 5u);  // 2,4,6,8,10
  q.add_accounts("chem");                      // alice never charged chem
  EXPECT_EQ(store->QueryJobs(q)->size(), 0u);

  wire::QueryJobsRequest states;
  states.add_states(wire::JOB_STATE_FAILED);
  ASSERT_EQ(store->QueryJobs(states)->size(), 1u);
  EXPECT_EQ(store->QueryJobs(states)->at(0).job_id(), 5u);

  // Attempts active in [4600, 7200]: 4 ended 4500 (out), 5..7 in, 8 starts 8000 (out),
  // and 11, still running, started after the window.
  wire::QueryJobsRequest window;
  window.set_window_start(4600);
  window.set_window_end(7200);
  auto in_window = *store->QueryJobs(window);
  ASSERT_EQ(in_window.size(), 3u);
  EXPECT_EQ(in_window[0].job_id(), 5u);
  EXPECT_EQ(in_window[2].job_id(), 7u);

  // A running job is in every window that reaches its start.
  wire::QueryJobsRequest late;
  late.set_window_start(50000);
  ASSERT_EQ(store->QueryJobs(late)->size(), 1u);

  // Named ids ignore the window.
  window.add_job_ids(1);
  window.add_job_ids(9);
  EXPECT_EQ(store->QueryJobs(window)->size(), 2u);
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
    sqlite3_close(db);
    auto v1 = OpenStore();  // Migrates to the current version...
    ASSERT_NE(v1, nullptr);
    EXPECT_EQ(v1->SchemaVersion(), SqliteStore::kSchemaVersion);
    ASSERT_TRUE(v1->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  }
  auto store = OpenStore();  // ...once.
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(All(*store).size(), 1u);
  wire::AcctEntity qos;
  qos.set_kind("qos");
  qos.set_name("high");
  EXPECT_TRUE(store->AddEntities({qos}).ok());
}

TEST_F(SqliteStoreTest, EntitiesAddListDelete) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto make = [](const char* kind, const char* name) {
    wire::AcctEntity e;
    e.set_kind(kind);
    e.set_name(name);
    (*e.mutable_fields())["Description"] = std::string(name) + " dept";
    return e;
  };
  ASSERT_TRUE(store->AddEntities({make("account", "phys"), make("account", "chem")}).ok());
  Status dup = store->AddEntities({make("account", "bio"), make("account", "phys")});
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  auto all = store->ListEntities("account", {});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);  // bio was not added: all or nothing
  EXPECT_EQ((*all)[0].name(), "chem");
  EXPECT_EQ((*all)[1].fields().at("Description"), "phys dept");
  EXPECT_EQ(store->ListEntities("account", {"phys"})->size(), 1u);
  EXPECT_EQ(store->ListEntities("qos", {})->size(), 0u);
  auto deleted = store->DeleteEntities("account", {"phys", "nope"});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, std::vector<std::string>{"phys"});
  EXPECT_EQ(store->ListEntities("account", {})->size(), 1u);
}

}  // namespace
}  // namespace rota::dbd
