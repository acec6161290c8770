#pragma once

// Shared by the store tests: job attempts to store, and opening either
// backend on a fresh database (SQLite: a file in a temporary directory;
// PostgreSQL: a new database on the test binary's throwaway server).

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dbd/accounting_store.h"
#include "dbd/pgsql_store.h"
#include "dbd/sqlite_store.h"
#include "testing/pg_test_env.h"
#include "testing/temp_dir.h"

namespace rota::dbd {

enum class Backend { kSqlite, kPgsql };

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kPgsql ? "Pgsql" : "Sqlite";
}

inline wire::AccountingJob Attempt(uint32_t id, uint32_t restarts, wire::JobState state,
                                   int64_t start, int64_t end) {
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

// PgsqlOptions for `database` on the test server.
inline PgsqlOptions TestPgOptions(const testing::PostgresServer& server,
                                  const std::string& database) {
  PgsqlOptions o;
  o.host = "127.0.0.1";
  o.port = server.port();
  o.user = server.user();
  o.password = server.password();
  o.database = database;
  o.connect_timeout_s = 5;
  return o;
}

// A fixture with one fresh database of the backend `kind`.
class StoreFixture {
 protected:
  // Sets up the database; a failure is a test failure (ADD_FAILURE).
  void PrepareDatabase(Backend kind) {
    kind_ = kind;
    if (kind != Backend::kPgsql) return;
    server_ = testing::PostgresEnvironment::Server();
    ASSERT_NE(server_, nullptr) << testing::PostgresEnvironment::StartError();
    database_ = server_->CreateDatabase();
    ASSERT_FALSE(database_.empty()) << server_->Log();
  }
  std::unique_ptr<AccountingStore> OpenStore() {
    if (kind_ == Backend::kPgsql) {
      if (server_ == nullptr) return nullptr;
      auto store = PgsqlStore::Open(TestPgOptions(*server_, database_));
      EXPECT_TRUE(store.ok()) << store.status().ToString();
      return store.ok() ? std::move(store).value() : nullptr;
    }
    auto store = SqliteStore::Open(path_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  int CurrentVersion() const {
    return kind_ == Backend::kPgsql ? PgsqlStore::kSchemaVersion : SqliteStore::kSchemaVersion;
  }
  std::vector<wire::AccountingJob> All(AccountingStore& store, bool all_attempts = false) {
    wire::QueryJobsRequest q;
    q.set_all_attempts(all_attempts);
    auto jobs = store.QueryJobs(q);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    return jobs.ok() ? *jobs : std::vector<wire::AccountingJob>{};
  }

  Backend kind_ = Backend::kSqlite;
  testing::TempDir dir_;
  std::string path_ = (dir_.path() / "acct.sqlite").string();
  testing::PostgresServer* server_ = nullptr;
  std::string database_;
};

}  // namespace rota::dbd
