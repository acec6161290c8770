#pragma once

// AccountingStore on one SQLite file (WAL journal, NORMAL sync: a committed
// transaction survives a rotadbd crash; the controller's outbox covers the
// rest). The schema is created, and migrated from older versions, on Open.

#include <functional>
#include <string>

#include "dbd/accounting_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace rota::dbd {

class SqliteStore : public AccountingStore {
 public:
  // The schema version this code writes (PRAGMA user_version).
  static constexpr int kSchemaVersion = 5;

  // Opens or creates the database file at `path`, then migrates it.
  // Errors: kUnavailable when the file cannot be opened; kFailedPrecondition
  // when it holds a newer schema than this code knows.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore() override;

  Status UpsertJobs(const std::vector<wire::AccountingJob>& jobs) override;
  Result<std::vector<wire::AccountingJob>> QueryJobs(const wire::QueryJobsRequest& query) override;
  Status UpsertNodeEvents(const std::vector<wire::NodeEvent>& events) override;
  Result<std::vector<wire::NodeEvent>> QueryNodeEvents(
      const wire::QueryNodeEventsRequest& query) override;
  Status AddEntities(const std::vector<wire::AcctEntity>& entities) override;
  Status ReplaceEntities(const std::vector<wire::AcctEntity>& entities) override;
  Result<std::vector<wire::AcctEntity>> ListEntities(
      const std::string& kind, const std::vector<std::string>& names) override;
  Result<std::vector<std::string>> DeleteEntities(const std::string& kind,
                                                  const std::vector<std::string>& names) override;
  int SchemaVersion() override;

 private:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  Status Exec(const char* sql);
  // Runs `sql` (?1 kind, ?2 name, ?3 the serialized entity) for each entity in
  // one transaction; `check` turns each step's result code into OK or the
  // error that rolls it all back.
  using EntityStepCheck = std::function<Status(const wire::AcctEntity& entity, int step_rc)>;
  Status WriteEntities(const char* sql, const std::vector<wire::AcctEntity>& entities,
                       const EntityStepCheck& check);
  Status Migrate();
  // Schema version 4: each stored attempt's array job, read from its record.
  Status BackfillArrayJobIds();
  Status Prepare();

  sqlite3* db_;
  sqlite3_stmt* upsert_ = nullptr;
};

}  // namespace rota::dbd
