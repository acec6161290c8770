#pragma once

// AccountingStore on a PostgreSQL database, through libpq. Same tables and
// semantics as the SQLite store (sqlite_store.h): one row per job attempt with
// the filtered columns apart and the whole record as its protobuf encoding,
// and sacctmgr's entities. The schema is created, and migrated from older
// versions, on Open; its version is the one row of table schema_version.
//
// Values always travel as statement parameters (prepared statements or
// PQexecParams), never inside the SQL text. A batch of job records is one
// statement (a column array each, in binary format), so one transaction and
// one round trip.
//
// A connection lost between calls (server restart, idle timeout, a killed
// backend) is re-established on the next call, and a call that fails because
// the connection broke is retried once on a new one; when the server stays
// unreachable the call returns kUnavailable, which rotadbd passes back to the
// controller, whose outbox keeps the records and sends them again.

#include <cstdint>
#include <string>

#include "dbd/accounting_store.h"

struct pg_conn;
struct pg_result;

namespace rota::dbd {

struct PgsqlOptions {
  std::string host = "localhost";  // A name, an address, or a socket directory ("/...").
  uint16_t port = 5432;
  std::string user;      // Empty: libpq's default (the user running rotadbd).
  std::string password;  // Empty: none (trust, peer, or ~/.pgpass).
  std::string database = "slurm_acct_db";
  int connect_timeout_s = 10;

  // "host:port", as errors name the server.
  std::string Endpoint() const;
};

class PgsqlStore : public AccountingStore {
 public:
  // The schema version this code writes.
  static constexpr int kSchemaVersion = 5;

  // Connects, then creates or migrates the schema.
  // Errors: kUnavailable when the server cannot be reached or refuses the
  // login (the message names host:port); kFailedPrecondition when the
  // database holds a newer schema than this code knows.
  static Result<std::unique_ptr<PgsqlStore>> Open(const PgsqlOptions& options);
  ~PgsqlStore() override;
  PgsqlStore(const PgsqlStore&) = delete;
  PgsqlStore& operator=(const PgsqlStore&) = delete;

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

  // How many times the connection was re-established (for tests and logs).
  int reconnects() const { return reconnects_; }

 private:
  explicit PgsqlStore(PgsqlOptions options) : options_(std::move(options)) {}

  // Connects (first time) or resets a broken connection, then prepares the
  // statements. kUnavailable when the server cannot be reached.
  Status Connect();
  Status EnsureConnected();
  bool ConnectionBroken() const;
  // Runs `op`; when it fails because the connection broke, reconnects and
  // runs it once more.
  template <typename Op>
  auto WithReconnect(Op op) -> decltype(op());

  Status Exec(const char* sql);
  Status Migrate();
  // Schema version 4: each stored attempt's array job, read from its record.
  Status BackfillArrayJobIds();
  // `query`'s job ids and those of the tasks of arrays among them, sorted.
  Result<std::vector<uint32_t>> JobIdsWithTasks(const wire::QueryJobsRequest& query);
  Result<int> ReadSchemaVersion();
  Status UpsertBatch(const std::vector<wire::AccountingJob>& jobs);
  // The error of a failed command, as a Status (kUnavailable when the
  // connection is gone).
  Status Error(pg_result* result, const std::string& what) const;

  PgsqlOptions options_;
  pg_conn* conn_ = nullptr;
  int reconnects_ = 0;
};

}  // namespace rota::dbd
