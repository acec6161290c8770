// What only the PostgreSQL backend does: its schema_version table, login and
// connection errors, reconnecting, and batches that fail whole. The
// contract both backends keep is in accounting_store_test.cc.
#include "dbd/pgsql_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "dbd/store_test_support.h"

namespace rota::dbd {
namespace {

class PgsqlStoreTest : public StoreFixture, public ::testing::Test {
 protected:
  void SetUp() override { PrepareDatabase(Backend::kPgsql); }
  std::string Query(const std::string& sql, const std::vector<std::string>& params = {}) {
    return server_->Query(database_, sql, params);
  }
  std::unique_ptr<PgsqlStore> OpenPg() {
    auto store = PgsqlStore::Open(TestPgOptions(*server_, database_));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
};

TEST_F(PgsqlStoreTest, KeepsTheSchemaVersionInItsOwnTable) {
  ASSERT_NE(OpenPg(), nullptr);
  EXPECT_EQ(Query("SELECT version FROM schema_version"),
            std::to_string(PgsqlStore::kSchemaVersion));
  EXPECT_EQ(Query("SELECT count(*) FROM schema_version"), "1");
  ASSERT_NE(OpenPg(), nullptr);  // A second open adds no row.
  EXPECT_EQ(Query("SELECT count(*) FROM schema_version"), "1");
}

TEST_F(PgsqlStoreTest, RefusesANewerSchema) {
  ASSERT_NE(OpenPg(), nullptr);
  ASSERT_EQ(Query("UPDATE schema_version SET version = 99"), "");
  auto store = PgsqlStore::Open(TestPgOptions(*server_, database_));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("schema version 99"), std::string::npos);
}

TEST_F(PgsqlStoreTest, MigratesAVersionOneDatabaseKeepingItsJobs) {
  // A database as the first schema left it, with one attempt in it.
  const std::string v1 =
      "CREATE TABLE job_attempts (cluster TEXT NOT NULL, job_id BIGINT NOT NULL, restarts BIGINT "
      "NOT NULL, user_name TEXT NOT NULL, account TEXT NOT NULL, partition TEXT NOT NULL, state "
      "INTEGER NOT NULL, ended BOOLEAN NOT NULL, submit_time BIGINT NOT NULL, start_time BIGINT "
      "NOT NULL, end_time BIGINT NOT NULL, record BYTEA NOT NULL, PRIMARY KEY (cluster, job_id, "
      "restarts))";
  ASSERT_EQ(Query(v1), "");
  ASSERT_EQ(Query("CREATE TABLE schema_version (version INTEGER NOT NULL)"), "");
  ASSERT_EQ(Query("INSERT INTO schema_version VALUES (1)"), "");
  // Job 1, and job 7: task 2 of array 5, whose array id only its record holds.
  wire::AccountingJob task = Attempt(7, 0, wire::JOB_STATE_COMPLETED, 100, 200);
  task.set_array_job_id(5);
  task.set_array_task_id(2);
  for (const wire::AccountingJob& job :
       {Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200), task}) {
    std::string hex = "\\x";
    for (unsigned char c : job.SerializeAsString()) hex += fmt::format("{:02x}", c);
    ASSERT_EQ(Query("INSERT INTO job_attempts VALUES ('c', $1::bigint, 0, 'bob', 'chem', 'batch', "
                    "3, true, 90, 100, 200, $2::bytea)",
                    {std::to_string(job.job_id()), hex}),
              "");
  }

  auto store = OpenPg();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->SchemaVersion(), PgsqlStore::kSchemaVersion);
  auto jobs = All(*store);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name(), "job1");
  // Version 4 read each row's array job from its record.
  wire::QueryJobsRequest by_array;
  by_array.add_job_ids(5);
  ASSERT_EQ(store->QueryJobs(by_array)->size(), 1u);
  EXPECT_EQ(store->QueryJobs(by_array)->at(0).job_id(), 7u);
  wire::AcctEntity qos;
  qos.set_kind("qos");
  qos.set_name("high");
  EXPECT_TRUE(store->AddEntities({qos}).ok());
}

TEST_F(PgsqlStoreTest, AConnectionFailureNamesTheServer) {
  PgsqlOptions options = TestPgOptions(*server_, database_);
  options.port = 1;  // Nobody listens there.
  auto store = PgsqlStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("cannot connect to PostgreSQL at 127.0.0.1:1"),
            std::string::npos)
      << store.status().message();

  options = TestPgOptions(*server_, database_);
  options.password = "wrong";
  store = PgsqlStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("password authentication failed"), std::string::npos)
      << store.status().message();
}

TEST_F(PgsqlStoreTest, ReconnectsWhenItsConnectionIsKilled) {
  auto store = OpenPg();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  auto kill_backends = [&] {
    return server_->Query("postgres",
                          "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                          "WHERE datname = $1 AND application_name = 'rotadbd'",
                          {database_});
  };
  ASSERT_EQ(kill_backends(), "1");
  // The next batch finds the connection gone, reconnects and is stored.
  ASSERT_TRUE(store->UpsertJobs({Attempt(2, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  EXPECT_EQ(store->reconnects(), 1);
  ASSERT_EQ(kill_backends(), "1");
  EXPECT_EQ(All(*store).size(), 2u);  // Queries too.
  EXPECT_EQ(store->reconnects(), 2);
  ASSERT_EQ(kill_backends(), "1");
  EXPECT_EQ(store->ListEntities("qos", {})->size(), 0u);
  EXPECT_EQ(store->reconnects(), 3);
}

TEST_F(PgsqlStoreTest, WhileTheServerIsDownCallsFailAsUnavailableThenWorkAgain) {
  auto store = OpenPg();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->UpsertJobs({Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  server_->Halt();
  Status down = store->UpsertJobs({Attempt(2, 0, wire::JOB_STATE_COMPLETED, 100, 200)});
  EXPECT_EQ(down.code(), StatusCode::kUnavailable) << down.ToString();
  EXPECT_NE(down.message().find("127.0.0.1:" + std::to_string(server_->port())), std::string::npos)
      << down.message();
  EXPECT_EQ(store->QueryJobs({}).status().code(), StatusCode::kUnavailable);
  ASSERT_EQ(server_->Restart(), "");
  // The caller (the controller's outbox) sends the same batch again.
  ASSERT_TRUE(store->UpsertJobs({Attempt(2, 0, wire::JOB_STATE_COMPLETED, 100, 200)}).ok());
  EXPECT_EQ(All(*store).size(), 2u);
}

TEST_F(PgsqlStoreTest, ABatchThatFailsStoresNothingAndTheNextOneWorks) {
  auto store = OpenPg();
  ASSERT_NE(store, nullptr);
  // Many rows; one of them late in the batch is
  // refused by the server (a constraint added for the test).
  ASSERT_EQ(Query("ALTER TABLE job_attempts ADD CONSTRAINT test_refuses CHECK (user_name <> "
                  "'refused')"),
            "");
  std::vector<wire::AccountingJob> jobs;
  for (uint32_t id = 1; id <= 700; ++id) {
    jobs.push_back(Attempt(id, 0, wire::JOB_STATE_COMPLETED, 1000 + id, 2000 + id));
  }
  jobs[600].set_user("refused");
  Status s = store->UpsertJobs(jobs);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
  EXPECT_NE(s.message().find("test_refuses"), std::string::npos) << s.message();
  EXPECT_EQ(Query("SELECT count(*) FROM job_attempts"), "0");

  jobs[600].set_user("alice");
  ASSERT_TRUE(store->UpsertJobs(jobs).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM job_attempts"), "700");
  EXPECT_EQ(store->reconnects(), 0);
}

TEST_F(PgsqlStoreTest, ValuesNeverBecomeSql) {
  auto store = OpenPg();
  ASSERT_NE(store, nullptr);
  auto job = Attempt(1, 0, wire::JOB_STATE_COMPLETED, 100, 200);
  job.set_account("x'); DROP TABLE job_attempts; --");
  ASSERT_TRUE(store->UpsertJobs({job}).ok());
  wire::QueryJobsRequest q;
  q.add_accounts("x'); DROP TABLE job_attempts; --");
  auto found = store->QueryJobs(q);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->size(), 1u);
  EXPECT_EQ(store->ListEntities("account", {"' OR '1'='1"})->size(), 0u);
}

}  // namespace
}  // namespace rota::dbd
