#include "dbd/sqlite_store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <string>
#include <tuple>
#include <type_traits>

#include "dbd/store_sql.h"

namespace rota::dbd {
namespace {

Status SqliteError(sqlite3* db, const std::string& what) {
  return Status(StatusCode::kInternal, fmt::format("{}: {}", what, sqlite3_errmsg(db)));
}

// Version 1: one row per job attempt. The columns that queries filter on are
// kept apart; the whole record is kept as its protobuf encoding, so fields
// added to AccountingJob later need no migration.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE job_attempts (
  cluster     TEXT    NOT NULL,
  job_id      INTEGER NOT NULL,
  restarts    INTEGER NOT NULL,
  user_name   TEXT    NOT NULL,
  account     TEXT    NOT NULL,
  partition   TEXT    NOT NULL,
  state       INTEGER NOT NULL,
  ended       INTEGER NOT NULL,
  submit_time INTEGER NOT NULL,
  start_time  INTEGER NOT NULL,
  end_time    INTEGER NOT NULL,
  record      BLOB    NOT NULL,
  PRIMARY KEY (cluster, job_id, restarts)
);
CREATE INDEX job_attempts_end ON job_attempts (end_time);
CREATE INDEX job_attempts_user ON job_attempts (user_name);
)sql";

// Version 2: sacctmgr's accounts, users and QoS.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE entities (
  kind   TEXT NOT NULL,
  name   TEXT NOT NULL,
  record BLOB NOT NULL,
  PRIMARY KEY (kind, name)
);
)sql";

// Version 3: node events (sacctmgr list events, sreport's Down). An event is
// keyed by its node and start; the record holds the whole NodeEvent.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE node_events (
  cluster    TEXT    NOT NULL,
  node       TEXT    NOT NULL,
  time_start INTEGER NOT NULL,
  time_end   INTEGER NOT NULL,
  state      TEXT    NOT NULL,
  record     BLOB    NOT NULL,
  PRIMARY KEY (cluster, node, time_start)
);
CREATE INDEX node_events_end ON node_events (time_end);
)sql";

// Version 4: the array job of each attempt, so `sacct -j ARRAY` finds every
// task. Rows stored before get theirs from their records (BackfillArrayJobIds).
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE job_attempts ADD COLUMN array_job_id INTEGER NOT NULL DEFAULT 0;
CREATE INDEX job_attempts_array ON job_attempts (array_job_id) WHERE array_job_id <> 0;
)sql";

// Version 5: a batch job's script and environment (AccountingStoreFlags),
// kept beside the record so that only sacct -B / --env-vars reads them.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE job_attempts ADD COLUMN script BLOB NOT NULL DEFAULT x'';
ALTER TABLE job_attempts ADD COLUMN environment BLOB NOT NULL DEFAULT x'';
)sql";

// A closed event is never reopened by a record of it still open.
constexpr const char* kUpsertEvent = R"sql(
INSERT INTO node_events (cluster, node, time_start, time_end, state, record)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (cluster, node, time_start) DO UPDATE SET
  time_end = excluded.time_end, state = excluded.state, record = excluded.record
WHERE node_events.time_end = 0 OR excluded.time_end <> 0
)sql";

// An ended attempt is never overwritten by a running one. The script and
// environment come with the start record only: later records keep them.
constexpr const char* kUpsert = R"sql(
INSERT INTO job_attempts (cluster, job_id, restarts, user_name, account, partition, state,
                          ended, submit_time, start_time, end_time, record, array_job_id,
                          script, environment)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
ON CONFLICT (cluster, job_id, restarts) DO UPDATE SET
  user_name = excluded.user_name, account = excluded.account, partition = excluded.partition,
  state = excluded.state, ended = excluded.ended, submit_time = excluded.submit_time,
  start_time = excluded.start_time, end_time = excluded.end_time, record = excluded.record,
  array_job_id = excluded.array_job_id,
  script = CASE WHEN length(excluded.script) > 0 THEN excluded.script ELSE job_attempts.script END,
  environment = CASE WHEN length(excluded.environment) > 0 THEN excluded.environment
                     ELSE job_attempts.environment END
WHERE job_attempts.ended = 0 OR excluded.ended = 1
)sql";

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

// A blob column's bytes (NULL and empty alike give "").
std::string ColumnBytes(sqlite3_stmt* st, int column) {
  const void* data = sqlite3_column_blob(st, column);
  const int size = sqlite3_column_bytes(st, column);
  return size > 0 ? std::string(static_cast<const char*>(data), static_cast<size_t>(size)) : "";
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status(StatusCode::kUnavailable, fmt::format("cannot open {}: {}", path, why));
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(db));
  sqlite3_busy_timeout(db, 5000);
  ROTA_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=WAL"));
  ROTA_RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=NORMAL"));
  ROTA_RETURN_IF_ERROR(store->Migrate());
  ROTA_RETURN_IF_ERROR(store->Prepare());
  return store;
}

SqliteStore::~SqliteStore() {
  sqlite3_finalize(upsert_);
  sqlite3_close(db_);
}

Status SqliteStore::Exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    Status s(StatusCode::kInternal, error != nullptr ? error : "sqlite error");
    sqlite3_free(error);
    return s;
  }
  return Status::Ok();
}

int SqliteStore::SchemaVersion() {
  Statement st(db_, "PRAGMA user_version");
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_ROW) return -1;
  return sqlite3_column_int(st.get(), 0);
}

Status SqliteStore::Migrate() {
  int version = SchemaVersion();
  if (version < 0) return SqliteError(db_, "reading the schema version");
  if (version > kSchemaVersion) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("the database has schema version {}, newer than this rotadbd ({})",
                              version, kSchemaVersion));
  }
  // Each step runs in its own transaction with the version bump, so a crash
  // mid-migration leaves the previous version intact.
  const char* steps[] = {kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4, kSchemaV5};
  for (int to = version + 1; to <= kSchemaVersion; ++to) {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    Status s = Exec(steps[to - 1]);
    if (s.ok() && to == 4) s = BackfillArrayJobIds();
    if (s.ok()) s = Exec(fmt::format("PRAGMA user_version = {}", to).c_str());
    if (!s.ok()) {
      (void)Exec("ROLLBACK");  // The error that caused it is the one to report.
      return s;
    }
    ROTA_RETURN_IF_ERROR(Exec("COMMIT"));
  }
  return Status::Ok();
}

Status SqliteStore::BackfillArrayJobIds() {
  std::vector<std::tuple<std::string, int64_t, int64_t, int64_t>> updates;
  {
    Statement st(db_, "SELECT cluster, job_id, restarts, record FROM job_attempts");
    if (!st.ok()) return SqliteError(db_, "reading jobs for schema version 4");
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      wire::AccountingJob job;
      if (!job.ParseFromArray(sqlite3_column_blob(st.get(), 3),
                              sqlite3_column_bytes(st.get(), 3)) ||
          job.array_job_id() == 0) {
        continue;  // An unreadable record is reported where it is read.
      }
      updates.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)),
                           sqlite3_column_int64(st.get(), 1), sqlite3_column_int64(st.get(), 2),
                           job.array_job_id());
    }
    if (rc != SQLITE_DONE) return SqliteError(db_, "reading jobs for schema version 4");
  }
  Statement update(db_,
                   "UPDATE job_attempts SET array_job_id = ?4 "
                   "WHERE cluster = ?1 AND job_id = ?2 AND restarts = ?3");
  if (!update.ok()) return SqliteError(db_, "preparing the array job backfill");
  for (const auto& [cluster, job_id, restarts, array_job_id] : updates) {
    sqlite3_reset(update.get());
    sqlite3_bind_text(update.get(), 1, cluster.data(), static_cast<int>(cluster.size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(update.get(), 2, job_id);
    sqlite3_bind_int64(update.get(), 3, restarts);
    sqlite3_bind_int64(update.get(), 4, array_job_id);
    if (sqlite3_step(update.get()) != SQLITE_DONE) {
      return SqliteError(db_, fmt::format("setting job {}'s array job", job_id));
    }
  }
  return Status::Ok();
}

Status SqliteStore::Prepare() {
  if (sqlite3_prepare_v3(db_, kUpsert, -1, SQLITE_PREPARE_PERSISTENT, &upsert_, nullptr) !=
      SQLITE_OK) {
    return SqliteError(db_, "preparing the job upsert");
  }
  return Status::Ok();
}

Status SqliteStore::UpsertJobs(const std::vector<wire::AccountingJob>& jobs) {
  ROTA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  std::string blob;
  wire::AccountingJob without_texts;
  for (const wire::AccountingJob& j : jobs) {
    blob.clear();
    RecordWithoutTexts(j, without_texts).SerializeToString(&blob);
    sqlite3_reset(upsert_);
    sqlite3_bind_text(upsert_, 1, j.cluster().data(), static_cast<int>(j.cluster().size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(upsert_, 2, j.job_id());
    sqlite3_bind_int64(upsert_, 3, j.restarts());
    sqlite3_bind_text(upsert_, 4, j.user().data(), static_cast<int>(j.user().size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(upsert_, 5, j.account().data(), static_cast<int>(j.account().size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(upsert_, 6, j.partition().data(), static_cast<int>(j.partition().size()),
                      SQLITE_STATIC);
    sqlite3_bind_int(upsert_, 7, static_cast<int>(j.state()));
    sqlite3_bind_int(upsert_, 8, j.ended() ? 1 : 0);
    sqlite3_bind_int64(upsert_, 9, j.submit_time());
    sqlite3_bind_int64(upsert_, 10, j.start_time());
    sqlite3_bind_int64(upsert_, 11, j.end_time());
    sqlite3_bind_blob(upsert_, 12, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    sqlite3_bind_int64(upsert_, 13, j.array_job_id());
    sqlite3_bind_blob(upsert_, 14, j.script().data(), static_cast<int>(j.script().size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(upsert_, 15, j.environment().data(), static_cast<int>(j.environment().size()),
                      SQLITE_STATIC);
    if (sqlite3_step(upsert_) != SQLITE_DONE) {
      Status s = SqliteError(db_, fmt::format("storing job {}", j.job_id()));
      sqlite3_reset(upsert_);
      (void)Exec("ROLLBACK");  // The error that caused it is the one to report.
      return s;
    }
  }
  sqlite3_reset(upsert_);
  return Exec("COMMIT");
}

Result<std::vector<wire::AccountingJob>> SqliteStore::QueryJobs(
    const wire::QueryJobsRequest& query) {
  // Values are bound, never spliced into the text.
  std::string sql = fmt::format("SELECT job_id, record, {}, {} FROM job_attempts WHERE 1=1",
                                TextColumn(query.with_script(), "script"),
                                TextColumn(query.with_environment(), "environment"));
  std::vector<std::string> texts;
  std::vector<int64_t> numbers;
  auto in_list = [&](const char* column, const auto& values) {
    if (values.empty()) return;
    sql += fmt::format(" AND {} IN (", column);
    for (int i = 0; i < values.size(); ++i) {
      sql += i == 0 ? "?" : ",?";
      if constexpr (std::is_same_v<std::decay_t<decltype(values[0])>, std::string>) {
        texts.push_back(values[i]);
      } else {
        numbers.push_back(static_cast<int64_t>(values[i]));
      }
    }
    sql += ")";
  };
  // Every text condition comes before every number condition, so binding
  // texts first, then numbers, follows the placeholders' order.
  if (!query.cluster().empty()) {
    sql += " AND cluster = ?";
    texts.push_back(query.cluster());
  } else if (!query.job_ids().empty()) {
    // The key starts with the cluster: naming every cluster there is (a few
    // index seeks) lets `sacct -j` seek each job instead of reading them all.
    sql = std::string(kEveryClusterCte) + sql + " AND cluster IN (SELECT name FROM clusters)";
  }
  in_list("user_name", query.users());
  in_list("account", query.accounts());
  in_list("partition", query.partitions());
  const size_t text_count = texts.size();
  if (!query.job_ids().empty()) {
    // A job id names the job, or every task of the array it is the id of.
    // Asked as one list of job ids (the ids given and the tasks' ids, found
    // by the array index), so the key still finds each row: an OR of the two
    // columns would read the whole table. The index holds array tasks only
    // (most rows are not), and is used because the query repeats its WHERE.
    std::string ids;
    for (int i = 0; i < query.job_ids_size(); ++i) ids += i == 0 ? "(?)" : ",(?)";
    sql += " AND job_id IN (SELECT column1 FROM (VALUES " + ids +
           ") UNION SELECT job_id FROM job_attempts WHERE array_job_id <> 0 AND array_job_id IN "
           "(SELECT column1 FROM "
           "(VALUES " +
           ids + ")))";
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t id : query.job_ids()) numbers.push_back(static_cast<int64_t>(id));
    }
  }
  in_list("state", query.states());
  if (query.job_ids().empty()) {
    if (query.window_end() > 0) {
      sql += " AND start_time <= ? AND (start_time > 0 OR submit_time <= ?)";
      numbers.push_back(query.window_end());
      numbers.push_back(query.window_end());
    }
    sql += " AND (ended = 0 OR end_time >= ?)";
    numbers.push_back(query.window_start());
  }
  sql += " ORDER BY job_id, restarts";
  Statement st(db_, sql);
  if (!st.ok()) return SqliteError(db_, "preparing the job query");
  int index = 1;
  for (size_t i = 0; i < text_count; ++i, ++index) {
    sqlite3_bind_text(st.get(), index, texts[i].data(), static_cast<int>(texts[i].size()),
                      SQLITE_STATIC);
  }
  for (int64_t n : numbers) sqlite3_bind_int64(st.get(), index++, n);

  std::vector<wire::AccountingJob> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    const void* data = sqlite3_column_blob(st.get(), 1);
    int size = sqlite3_column_bytes(st.get(), 1);
    wire::AccountingJob job;
    if (!job.ParseFromArray(data, size)) {
      return Status(StatusCode::kCorruption, fmt::format("job {}: stored record does not parse",
                                                         sqlite3_column_int64(st.get(), 0)));
    }
    job.set_script(ColumnBytes(st.get(), 2));
    job.set_environment(ColumnBytes(st.get(), 3));
    // Rows come by job then attempt: a later attempt replaces the one before.
    if (!query.all_attempts() && !out.empty() && out.back().job_id() == job.job_id()) {
      out.back() = std::move(job);
    } else {
      out.push_back(std::move(job));
    }
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "reading jobs");
  return out;
}

Status SqliteStore::UpsertNodeEvents(const std::vector<wire::NodeEvent>& events) {
  if (events.empty()) return Status::Ok();
  ROTA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Statement st(db_, kUpsertEvent);
  if (!st.ok()) {
    Status s = SqliteError(db_, "preparing the node event upsert");
    (void)Exec("ROLLBACK");
    return s;
  }
  std::string blob;
  for (const wire::NodeEvent& e : events) {
    blob = e.SerializeAsString();
    sqlite3_reset(st.get());
    sqlite3_bind_text(st.get(), 1, e.cluster().data(), static_cast<int>(e.cluster().size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(st.get(), 2, e.node().data(), static_cast<int>(e.node().size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(st.get(), 3, e.time_start());
    sqlite3_bind_int64(st.get(), 4, e.time_end());
    sqlite3_bind_text(st.get(), 5, e.state().data(), static_cast<int>(e.state().size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(st.get(), 6, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    if (sqlite3_step(st.get()) != SQLITE_DONE) {
      Status s = SqliteError(db_, "storing the event of node " + e.node());
      (void)Exec("ROLLBACK");
      return s;
    }
  }
  return Exec("COMMIT");
}

Result<std::vector<wire::NodeEvent>> SqliteStore::QueryNodeEvents(
    const wire::QueryNodeEventsRequest& query) {
  std::string sql = "SELECT record FROM node_events WHERE 1=1";
  std::vector<std::string> texts;
  auto in_list = [&](const char* column, const auto& values) {
    if (values.empty()) return;
    sql += fmt::format(" AND {} IN (", column);
    for (int i = 0; i < values.size(); ++i) {
      sql += i == 0 ? "?" : ",?";
      texts.push_back(values[i]);
    }
    sql += ")";
  };
  if (!query.cluster().empty()) {
    sql += " AND cluster = ?";
    texts.push_back(query.cluster());
  }
  in_list("node", query.nodes());
  in_list("state", query.states());
  // Numbers after every text, as they are bound.
  std::vector<int64_t> numbers;
  if (query.window_end() > 0) {
    sql += " AND time_start <= ?";
    numbers.push_back(query.window_end());
  }
  sql += " AND (time_end = 0 OR time_end >= ?)";
  numbers.push_back(query.window_start());
  if (query.open_only()) sql += " AND time_end = 0";
  sql += " ORDER BY time_start, node";
  Statement st(db_, sql);
  if (!st.ok()) return SqliteError(db_, "preparing the node event query");
  int index = 1;
  for (const std::string& t : texts) {
    sqlite3_bind_text(st.get(), index++, t.data(), static_cast<int>(t.size()), SQLITE_STATIC);
  }
  for (int64_t n : numbers) sqlite3_bind_int64(st.get(), index++, n);
  std::vector<wire::NodeEvent> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    wire::NodeEvent e;
    if (!e.ParseFromArray(sqlite3_column_blob(st.get(), 0), sqlite3_column_bytes(st.get(), 0))) {
      return Status(StatusCode::kCorruption, "a stored node event does not parse");
    }
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "reading node events");
  return out;
}

Status SqliteStore::WriteEntities(const char* sql, const std::vector<wire::AcctEntity>& entities,
                                  const EntityStepCheck& check) {
  ROTA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Statement st(db_, sql);
  if (!st.ok()) {
    (void)Exec("ROLLBACK");
    return SqliteError(db_, "preparing an entity write");
  }
  std::string blob;
  for (const wire::AcctEntity& e : entities) {
    blob = e.SerializeAsString();
    sqlite3_reset(st.get());
    sqlite3_bind_text(st.get(), 1, e.kind().data(), static_cast<int>(e.kind().size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(st.get(), 2, e.name().data(), static_cast<int>(e.name().size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(st.get(), 3, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    if (Status s = check(e, sqlite3_step(st.get())); !s.ok()) {
      (void)Exec("ROLLBACK");
      return s;
    }
  }
  return Exec("COMMIT");
}

Status SqliteStore::AddEntities(const std::vector<wire::AcctEntity>& entities) {
  return WriteEntities("INSERT INTO entities (kind, name, record) VALUES (?1, ?2, ?3)", entities,
                       [&](const wire::AcctEntity& e, int rc) {
                         if (rc == SQLITE_DONE) return Status::Ok();
                         return (rc & 0xff) == SQLITE_CONSTRAINT
                                    ? Status(
                                          StatusCode::kAlreadyExists,
                                          fmt::format("{} {} already exists", e.kind(), e.name()))
                                    : SqliteError(db_, "adding " + e.name());
                       });
}

Status SqliteStore::ReplaceEntities(const std::vector<wire::AcctEntity>& entities) {
  return WriteEntities("UPDATE entities SET record = ?3 WHERE kind = ?1 AND name = ?2", entities,
                       [&](const wire::AcctEntity& e, int rc) {
                         if (rc == SQLITE_DONE && sqlite3_changes(db_) > 0) return Status::Ok();
                         return rc == SQLITE_DONE
                                    ? Status(StatusCode::kNotFound,
                                             fmt::format("{} {} doesn't exist", e.kind(), e.name()))
                                    : SqliteError(db_, "updating " + e.name());
                       });
}

Result<std::vector<wire::AcctEntity>> SqliteStore::ListEntities(
    const std::string& kind, const std::vector<std::string>& names) {
  std::string sql = "SELECT record FROM entities WHERE kind = ?";
  for (size_t i = 0; i < names.size(); ++i) sql += i == 0 ? " AND name IN (?" : ",?";
  if (!names.empty()) sql += ")";
  sql += " ORDER BY name";
  Statement st(db_, sql);
  if (!st.ok()) return SqliteError(db_, "preparing the listing");
  sqlite3_bind_text(st.get(), 1, kind.data(), static_cast<int>(kind.size()), SQLITE_STATIC);
  for (size_t i = 0; i < names.size(); ++i) {
    sqlite3_bind_text(st.get(), static_cast<int>(i + 2), names[i].data(),
                      static_cast<int>(names[i].size()), SQLITE_STATIC);
  }
  std::vector<wire::AcctEntity> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    wire::AcctEntity e;
    if (!e.ParseFromArray(sqlite3_column_blob(st.get(), 0), sqlite3_column_bytes(st.get(), 0))) {
      return Status(StatusCode::kCorruption, "a stored " + kind + " does not parse");
    }
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "listing " + kind);
  return out;
}

Result<std::vector<std::string>> SqliteStore::DeleteEntities(
    const std::string& kind, const std::vector<std::string>& names) {
  ROTA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Statement st(db_, "DELETE FROM entities WHERE kind = ?1 AND name = ?2");
  if (!st.ok()) {
    (void)Exec("ROLLBACK");
    return SqliteError(db_, "preparing the delete");
  }
  std::vector<std::string> deleted;
  for (const std::string& name : names) {
    sqlite3_reset(st.get());
    sqlite3_bind_text(st.get(), 1, kind.data(), static_cast<int>(kind.size()), SQLITE_STATIC);
    sqlite3_bind_text(st.get(), 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    if (sqlite3_step(st.get()) != SQLITE_DONE) {
      Status s = SqliteError(db_, "deleting " + name);
      (void)Exec("ROLLBACK");
      return s;
    }
    if (sqlite3_changes(db_) > 0) deleted.push_back(name);
  }
  ROTA_RETURN_IF_ERROR(Exec("COMMIT"));
  return deleted;
}

}  // namespace rota::dbd
