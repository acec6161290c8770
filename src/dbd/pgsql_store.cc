#include "dbd/pgsql_store.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "common/log.h"
#include "dbd/store_sql.h"

namespace rota::dbd {
namespace {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// Version 1: one row per job attempt, as in the SQLite store.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE job_attempts (
  cluster     TEXT    NOT NULL,
  job_id      BIGINT  NOT NULL,
  restarts    BIGINT  NOT NULL,
  user_name   TEXT    NOT NULL,
  account     TEXT    NOT NULL,
  partition   TEXT    NOT NULL,
  state       INTEGER NOT NULL,
  ended       BOOLEAN NOT NULL,
  submit_time BIGINT  NOT NULL,
  start_time  BIGINT  NOT NULL,
  end_time    BIGINT  NOT NULL,
  record      BYTEA   NOT NULL,
  PRIMARY KEY (cluster, job_id, restarts)
);
CREATE INDEX job_attempts_end ON job_attempts (end_time);
CREATE INDEX job_attempts_user ON job_attempts (user_name);
)sql";

// Version 2: sacctmgr's accounts, users and QoS.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE entities (
  kind   TEXT  NOT NULL,
  name   TEXT  NOT NULL,
  record BYTEA NOT NULL,
  PRIMARY KEY (kind, name)
);
)sql";

// Version 3: node events, as in the SQLite store.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE node_events (
  cluster    TEXT   NOT NULL,
  node       TEXT   NOT NULL,
  time_start BIGINT NOT NULL,
  time_end   BIGINT NOT NULL,
  state      TEXT   NOT NULL,
  record     BYTEA  NOT NULL,
  PRIMARY KEY (cluster, node, time_start)
);
CREATE INDEX node_events_end ON node_events (time_end);
)sql";

// Version 4: the array job of each attempt, as in the SQLite store.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE job_attempts ADD COLUMN array_job_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX job_attempts_array ON job_attempts (array_job_id) WHERE array_job_id <> 0;
)sql";

// Version 5: a batch job's script and environment (AccountingStoreFlags),
// kept beside the record so that only sacct -B / --env-vars reads them.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE job_attempts ADD COLUMN script BYTEA NOT NULL DEFAULT ''::bytea;
ALTER TABLE job_attempts ADD COLUMN environment BYTEA NOT NULL DEFAULT ''::bytea;
)sql";

// A closed event is never reopened by a record of it still open.
constexpr const char* kUpsertEvent = R"sql(
INSERT INTO node_events (cluster, node, time_start, time_end, state, record)
VALUES ($1, $2, $3::bigint, $4::bigint, $5, $6)
ON CONFLICT (cluster, node, time_start) DO UPDATE SET
  time_end = EXCLUDED.time_end, state = EXCLUDED.state, record = EXCLUDED.record
WHERE node_events.time_end = 0 OR EXCLUDED.time_end <> 0
)sql";

// A whole batch in one statement: one array per column, unnested into rows.
// An ended attempt is never overwritten by a running one. The script and
// environment come with the start record only: later records keep them.
constexpr const char* kUpsertName = "rota_upsert_jobs";
constexpr const char* kUpsert = R"sql(
INSERT INTO job_attempts (cluster, job_id, restarts, user_name, account, partition, state,
                          ended, submit_time, start_time, end_time, record, array_job_id,
                          script, environment)
SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[],
                     $6::text[], $7::integer[], $8::boolean[], $9::bigint[], $10::bigint[],
                     $11::bigint[], $12::bytea[], $13::bigint[], $14::bytea[], $15::bytea[])
ON CONFLICT (cluster, job_id, restarts) DO UPDATE SET
  user_name = EXCLUDED.user_name, account = EXCLUDED.account, partition = EXCLUDED.partition,
  state = EXCLUDED.state, ended = EXCLUDED.ended, submit_time = EXCLUDED.submit_time,
  start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, record = EXCLUDED.record,
  array_job_id = EXCLUDED.array_job_id,
  script = CASE WHEN length(EXCLUDED.script) > 0 THEN EXCLUDED.script ELSE job_attempts.script END,
  environment = CASE WHEN length(EXCLUDED.environment) > 0 THEN EXCLUDED.environment
                     ELSE job_attempts.environment END
WHERE NOT job_attempts.ended OR EXCLUDED.ended
)sql";

// Serialises migrations of one database by concurrent rotadbds.
constexpr int64_t kMigrationLockKey = 0x726f7461646264;  // "rotadbd"

// Element type OIDs (pg_type.h) for arrays in binary format.
constexpr uint32_t kTextOid = 25;
constexpr uint32_t kInt8Oid = 20;
constexpr uint32_t kInt4Oid = 23;
constexpr uint32_t kBoolOid = 16;
constexpr uint32_t kByteaOid = 17;

void PutU32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

// A one-dimensional array without NULLs in PostgreSQL's binary format: no
// quoting or escaping of values at all.
class BinaryArray {
 public:
  explicit BinaryArray(uint32_t element_oid) : oid_(element_oid) {}
  void Add(std::string_view bytes) {
    PutU32(elements_, static_cast<uint32_t>(bytes.size()));
    elements_.append(bytes);
    ++count_;
  }
  void AddInt64(int64_t v) {
    PutU32(elements_, 8);
    PutU32(elements_, static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
    PutU32(elements_, static_cast<uint32_t>(static_cast<uint64_t>(v)));
    ++count_;
  }
  void AddInt32(int32_t v) {
    PutU32(elements_, 4);
    PutU32(elements_, static_cast<uint32_t>(v));
    ++count_;
  }
  void AddBool(bool v) {
    PutU32(elements_, 1);
    elements_ += v ? '\1' : '\0';
    ++count_;
  }
  std::string Encode() const {
    std::string out;
    PutU32(out, 1);  // dimensions
    PutU32(out, 0);  // no NULLs
    PutU32(out, oid_);
    PutU32(out, count_);
    PutU32(out, 1);  // lower bound
    return out + elements_;
  }

 private:
  uint32_t oid_;
  uint32_t count_ = 0;
  std::string elements_;
};

// `s` as PostgreSQL text accepts it: each NUL becomes U+FFFD (protobuf
// strings are UTF-8 already, but may hold NULs, which text cannot). Rows and
// queries go through the same mapping, so such a name is still stored and
// found instead of its batch being refused, and the controller's outbox held
// up behind it, forever. The record (bytea) keeps the exact bytes.
std::string ServerText(std::string s) {
  if (s.find('\0') == std::string::npos) return s;
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    if (c == '\0') {
      out += "\xef\xbf\xbd";
    } else {
      out += c;
    }
  }
  return out;
}

// Statement parameters: text values, except binary ones (bytea).
class Params {
 public:
  void Text(std::string v) { Add(ServerText(std::move(v)), 0); }
  void Number(int64_t n) { Add(std::to_string(n), 0); }
  void Binary(std::string v) { Add(std::move(v), 1); }
  void Clear() {
    values_.clear();
    formats_.clear();
  }
  int size() const { return static_cast<int>(values_.size()); }
  // Valid until the next change.
  const char* const* values() {
    pointers_.clear();
    lengths_.clear();
    for (const std::string& v : values_) {
      pointers_.push_back(v.data());
      lengths_.push_back(static_cast<int>(v.size()));
    }
    return pointers_.data();
  }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  void Add(std::string v, int format) {
    values_.push_back(std::move(v));
    formats_.push_back(format);
  }
  std::vector<std::string> values_;
  std::vector<int> formats_;
  std::vector<const char*> pointers_;
  std::vector<int> lengths_;
};

const Status& StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}

// libpq's message on one line (it spreads some over several, with tabs).
std::string Trimmed(const char* message) {
  std::string s;
  for (const char* p = message != nullptr ? message : ""; *p != '\0'; ++p) {
    if (*p == '\n' || *p == '\t') {
      if (!s.empty() && s.back() != ' ') s += ' ';
    } else {
      s += *p;
    }
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool IsUniqueViolation(const PGresult* r) {
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  return state != nullptr && std::string(state) == "23505";
}

}  // namespace

std::string PgsqlOptions::Endpoint() const { return fmt::format("{}:{}", host, port); }

Result<std::unique_ptr<PgsqlStore>> PgsqlStore::Open(const PgsqlOptions& options) {
  std::unique_ptr<PgsqlStore> store(new PgsqlStore(options));
  ROTA_RETURN_IF_ERROR(store->Connect());
  ROTA_RETURN_IF_ERROR(store->Migrate());
  return store;
}

PgsqlStore::~PgsqlStore() { PQfinish(conn_); }

Status PgsqlStore::Connect() {
  if (conn_ != nullptr) {
    // A new connection rather than PQreset: nothing of the old one's state
    // (an open transaction, say) can carry over.
    PQfinish(conn_);
    conn_ = nullptr;
    ++reconnects_;
  }
  const std::string port = std::to_string(options_.port);
  const std::string timeout = std::to_string(options_.connect_timeout_s);
  std::vector<const char*> keys = {"host", "port", "dbname", "connect_timeout", "application_name"};
  std::vector<const char*> values = {options_.host.c_str(), port.c_str(), options_.database.c_str(),
                                     timeout.c_str(), "rotadbd"};
  if (!options_.user.empty()) {
    keys.push_back("user");
    values.push_back(options_.user.c_str());
  }
  if (!options_.password.empty()) {
    keys.push_back("password");
    values.push_back(options_.password.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = PQconnectdbParams(keys.data(), values.data(), 0);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("cannot connect to PostgreSQL at {}: {}", options_.Endpoint(),
                              Trimmed(conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory")));
  }
  // Notices ("relation already exists, skipping") go to the debug log, not stderr.
  PQsetNoticeProcessor(
      conn_, [](void*, const char* message) { spdlog::debug("postgresql: {}", Trimmed(message)); },
      nullptr);
  // The upsert is prepared once the schema is current (after Migrate on the
  // first open of an older one). The version table is looked for first: a
  // query naming a table that does not exist fails, even in a branch not taken.
  PgResult has_versions(PQexec(conn_, "SELECT to_regclass('schema_version') IS NOT NULL"));
  if (PQresultStatus(has_versions.get()) != PGRES_TUPLES_OK) {
    return Error(has_versions.get(), "checking the schema");
  }
  Result<int> version = 0;
  if (std::string(PQgetvalue(has_versions.get(), 0, 0)) == "t") version = ReadSchemaVersion();
  if (!version.ok()) return version.status();
  if (*version == kSchemaVersion) {
    PgResult prepared(PQprepare(conn_, kUpsertName, kUpsert, 0, nullptr));
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      return Error(prepared.get(), "preparing the job upsert");
    }
  }
  return Status::Ok();
}

bool PgsqlStore::ConnectionBroken() const {
  return conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK;
}

Status PgsqlStore::EnsureConnected() {
  if (!ConnectionBroken()) return Status::Ok();
  spdlog::warn("reconnecting to PostgreSQL at {}", options_.Endpoint());
  return Connect();
}

template <typename Op>
auto PgsqlStore::WithReconnect(Op op) -> decltype(op()) {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  auto result = op();
  if (!result.ok() && ConnectionBroken()) {
    spdlog::warn("lost the connection to PostgreSQL at {} ({}); reconnecting", options_.Endpoint(),
                 StatusOf(result).message());
    if (Status s = Connect(); !s.ok()) return s;
    result = op();
  }
  return result;
}

Status PgsqlStore::Error(PGresult* result, const std::string& what) const {
  std::string message = Trimmed(result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                                    ? PQresultErrorMessage(result)
                                    : PQerrorMessage(conn_));
  if (ConnectionBroken()) {
    return Status(StatusCode::kUnavailable,
                  fmt::format("{}: PostgreSQL at {}: {}", what, options_.Endpoint(), message));
  }
  return Status(StatusCode::kInternal, fmt::format("{}: {}", what, message));
}

Status PgsqlStore::Exec(const char* sql) {
  PgResult r(PQexec(conn_, sql));
  ExecStatusType st = PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Error(r.get(), sql);
  return Status::Ok();
}

Result<int> PgsqlStore::ReadSchemaVersion() {
  PgResult r(PQexec(conn_,
                    "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN 0 "
                    "ELSE (SELECT coalesce(max(version), 0) FROM schema_version) END"));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
    return Error(r.get(), "reading the schema version");
  }
  return std::stoi(PQgetvalue(r.get(), 0, 0));
}

int PgsqlStore::SchemaVersion() {
  Result<int> v = WithReconnect([&] { return ReadSchemaVersion(); });
  return v.ok() ? *v : -1;
}

Status PgsqlStore::Migrate() {
  const char* steps[] = {kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4, kSchemaV5};
  // Each step runs in its own transaction with the version bump, so a crash
  // mid-migration leaves the previous version intact; the advisory lock makes
  // a second rotadbd starting at the same time wait, then find it done.
  while (true) {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN"));
    auto fail = [&](Status s) {
      (void)Exec("ROLLBACK");  // The error that caused it is the one to report.
      return s;
    };
    Status s = Exec(fmt::format("SELECT pg_advisory_xact_lock({})", kMigrationLockKey).c_str());
    if (s.ok()) s = Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    if (!s.ok()) return fail(s);
    Result<int> version = ReadSchemaVersion();
    if (!version.ok()) return fail(version.status());
    if (*version > kSchemaVersion) {
      return fail(Status(StatusCode::kFailedPrecondition,
                         fmt::format("the database has schema version {}, newer than this "
                                     "rotadbd ({})",
                                     *version, kSchemaVersion)));
    }
    if (*version == kSchemaVersion) return Exec("COMMIT");
    const int to = *version + 1;
    s = Exec(steps[to - 1]);
    if (s.ok() && to == 4) s = BackfillArrayJobIds();
    if (s.ok()) s = Exec("DELETE FROM schema_version");
    if (s.ok()) {
      s = Exec(fmt::format("INSERT INTO schema_version (version) VALUES ({})", to).c_str());
    }
    if (!s.ok()) return fail(s);
    ROTA_RETURN_IF_ERROR(Exec("COMMIT"));
    spdlog::info("accounting schema migrated to version {}", to);
    if (to == kSchemaVersion) {
      PgResult prepared(PQprepare(conn_, kUpsertName, kUpsert, 0, nullptr));
      if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        return Error(prepared.get(), "preparing the job upsert");
      }
    }
  }
}

Status PgsqlStore::BackfillArrayJobIds() {
  // Binary results: the record column comes as the bytes stored.
  PgResult rows(PQexecParams(conn_, "SELECT cluster, job_id, restarts, record FROM job_attempts", 0,
                             nullptr, nullptr, nullptr, nullptr, 0));
  if (PQresultStatus(rows.get()) != PGRES_TUPLES_OK) {
    return Error(rows.get(), "reading jobs for schema version 4");
  }
  for (int row = 0; row < PQntuples(rows.get()); ++row) {
    size_t size = 0;
    unsigned char* bytes = PQunescapeBytea(
        reinterpret_cast<const unsigned char*>(PQgetvalue(rows.get(), row, 3)), &size);
    wire::AccountingJob job;
    const bool parsed = bytes != nullptr && job.ParseFromArray(bytes, static_cast<int>(size));
    PQfreemem(bytes);
    if (!parsed || job.array_job_id() == 0) continue;  // Reported where it is read.
    Params p;
    p.Text(PQgetvalue(rows.get(), row, 0));
    p.Number(std::stoll(PQgetvalue(rows.get(), row, 1)));
    p.Number(std::stoll(PQgetvalue(rows.get(), row, 2)));
    p.Number(job.array_job_id());
    const char* const* values = p.values();
    PgResult r(PQexecParams(conn_,
                            "UPDATE job_attempts SET array_job_id = $4 "
                            "WHERE cluster = $1 AND job_id = $2 AND restarts = $3",
                            p.size(), nullptr, values, p.lengths(), p.formats(), 0));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      return Error(r.get(), fmt::format("setting job {}'s array job", job.job_id()));
    }
  }
  return Status::Ok();
}

Status PgsqlStore::UpsertJobs(const std::vector<wire::AccountingJob>& jobs) {
  return WithReconnect([&] { return UpsertBatch(jobs); });
}

Status PgsqlStore::UpsertBatch(const std::vector<wire::AccountingJob>& jobs) {
  // One row per attempt: a statement may not update a row twice. Folding the
  // batch's records of one attempt with the store's own rule (a record
  // replaces the one before unless that one ended and it did not) and
  // storing the result under the same rule gives what storing them one by
  // one in order would.
  std::vector<const wire::AccountingJob*> rows;
  // The script and environment of each row: the last record of the batch
  // that carries them (the store keeps them across records the same way).
  std::vector<std::pair<const std::string*, const std::string*>> texts;
  // (Keyed by the cluster as stored, should a NUL have been mapped.)
  std::map<std::tuple<std::string, uint32_t, uint32_t>, size_t> row_of;
  for (const wire::AccountingJob& j : jobs) {
    auto [it, added] =
        row_of.try_emplace({ServerText(j.cluster()), j.job_id(), j.restarts()}, rows.size());
    if (added) {
      rows.push_back(&j);
      texts.emplace_back(&j.script(), &j.environment());
    } else if (!rows[it->second]->ended() || j.ended()) {
      rows[it->second] = &j;
    }
    if (!j.script().empty()) texts[it->second].first = &j.script();
    if (!j.environment().empty()) texts[it->second].second = &j.environment();
  }
  if (rows.empty()) return Status::Ok();
  BinaryArray cluster(kTextOid), job_id(kInt8Oid), restarts(kInt8Oid), user(kTextOid),
      account(kTextOid), partition(kTextOid), state(kInt4Oid), ended(kBoolOid), submit(kInt8Oid),
      start(kInt8Oid), end(kInt8Oid), record(kByteaOid), array_job(kInt8Oid), script(kByteaOid),
      environment(kByteaOid);
  std::string blob;
  wire::AccountingJob without_texts;
  for (size_t row = 0; row < rows.size(); ++row) {
    const wire::AccountingJob* j = rows[row];
    cluster.Add(ServerText(j->cluster()));
    job_id.AddInt64(j->job_id());
    restarts.AddInt64(j->restarts());
    user.Add(ServerText(j->user()));
    account.Add(ServerText(j->account()));
    partition.Add(ServerText(j->partition()));
    state.AddInt32(static_cast<int32_t>(j->state()));
    ended.AddBool(j->ended());
    submit.AddInt64(j->submit_time());
    start.AddInt64(j->start_time());
    end.AddInt64(j->end_time());
    blob.clear();
    RecordWithoutTexts(*j, without_texts).SerializeToString(&blob);
    record.Add(blob);
    array_job.AddInt64(j->array_job_id());
    script.Add(*texts[row].first);
    environment.Add(*texts[row].second);
  }
  Params p;
  for (const BinaryArray* column :
       {&cluster, &job_id, &restarts, &user, &account, &partition, &state, &ended, &submit, &start,
        &end, &record, &array_job, &script, &environment}) {
    p.Binary(column->Encode());
  }
  const char* const* values = p.values();
  PgResult r(PQexecPrepared(conn_, kUpsertName, p.size(), values, p.lengths(), p.formats(), 0));
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return Error(r.get(), "storing jobs");
  return Status::Ok();
}

Result<std::vector<uint32_t>> PgsqlStore::JobIdsWithTasks(const wire::QueryJobsRequest& query) {
  std::vector<uint32_t> ids(query.job_ids().begin(), query.job_ids().end());
  Params p;
  std::string list;
  for (uint32_t id : query.job_ids()) {
    p.Number(id);
    list += fmt::format("{}${}", list.empty() ? "" : ",", p.size());
  }
  const std::string sql =
      "SELECT job_id FROM job_attempts WHERE array_job_id <> 0 AND "
      "array_job_id IN (" +
      list + ")";
  const char* const* values = p.values();
  PgResult r(
      PQexecParams(conn_, sql.c_str(), p.size(), nullptr, values, p.lengths(), p.formats(), 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return Error(r.get(), "finding array tasks");
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    ids.push_back(static_cast<uint32_t>(std::stoull(PQgetvalue(r.get(), row, 0))));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

Result<std::vector<wire::AccountingJob>> PgsqlStore::QueryJobs(
    const wire::QueryJobsRequest& query) {
  // Values are bound, never spliced into the text.
  std::string sql = fmt::format("SELECT record, {}, {} FROM job_attempts WHERE true",
                                TextColumn(query.with_script(), "script"),
                                TextColumn(query.with_environment(), "environment"));
  Params p;
  auto in_list = [&](const char* column, const auto& values) {
    if (values.empty()) return;
    sql += fmt::format(" AND {} IN (", column);
    for (int i = 0; i < static_cast<int>(values.size()); ++i) {
      if constexpr (std::is_same_v<std::decay_t<decltype(values[0])>, std::string>) {
        p.Text(values[i]);
      } else {
        p.Number(static_cast<int64_t>(values[i]));
      }
      sql += fmt::format("{}${}", i == 0 ? "" : ",", p.size());
    }
    sql += ")";
  };
  if (!query.cluster().empty()) {
    p.Text(query.cluster());
    sql += fmt::format(" AND cluster = ${}", p.size());
  } else if (!query.job_ids().empty()) {
    // The key starts with the cluster: naming every cluster there is (a few
    // index seeks) lets `sacct -j` seek each job instead of reading them all.
    sql = std::string(kEveryClusterCte) + sql + " AND cluster IN (SELECT name FROM clusters)";
  }
  in_list("user_name", query.users());
  in_list("account", query.accounts());
  in_list("partition", query.partitions());
  if (!query.job_ids().empty()) {
    // A job id names the job, or every task of the array it is the id of:
    // the tasks' ids are looked up first (the array index), then every row
    // is found by its key, as for ids alone. One statement joining the two
    // makes the planner read the whole table.
    Result<std::vector<uint32_t>> ids = WithReconnect([&] { return JobIdsWithTasks(query); });
    if (!ids.ok()) return ids.status();
    in_list("job_id", *ids);
  }
  in_list("state", query.states());
  if (query.job_ids().empty()) {
    if (query.window_end() > 0) {
      p.Number(query.window_end());
      sql += fmt::format(" AND start_time <= ${0} AND (start_time > 0 OR submit_time <= ${0})",
                         p.size());
    }
    p.Number(query.window_start());
    sql += fmt::format(" AND (NOT ended OR end_time >= ${})", p.size());
  }
  sql += " ORDER BY job_id, restarts";

  return WithReconnect([&]() -> Result<std::vector<wire::AccountingJob>> {
    const char* const* values = p.values();
    // Binary results: the record column comes as the bytes stored.
    PgResult r(
        PQexecParams(conn_, sql.c_str(), p.size(), nullptr, values, p.lengths(), p.formats(), 1));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return Error(r.get(), "reading jobs");
    const int rows = PQntuples(r.get());
    std::vector<wire::AccountingJob> out;
    out.reserve(static_cast<size_t>(rows));
    for (int row = 0; row < rows; ++row) {
      wire::AccountingJob job;
      if (!job.ParseFromArray(PQgetvalue(r.get(), row, 0), PQgetlength(r.get(), row, 0))) {
        return Status(StatusCode::kCorruption,
                      fmt::format("job record {} of the answer does not parse", row));
      }
      job.set_script(PQgetvalue(r.get(), row, 1), PQgetlength(r.get(), row, 1));
      job.set_environment(PQgetvalue(r.get(), row, 2), PQgetlength(r.get(), row, 2));
      // Rows come by job then attempt: a later attempt replaces the one before.
      if (!query.all_attempts() && !out.empty() && out.back().job_id() == job.job_id()) {
        out.back() = std::move(job);
      } else {
        out.push_back(std::move(job));
      }
    }
    return out;
  });
}

Status PgsqlStore::UpsertNodeEvents(const std::vector<wire::NodeEvent>& events) {
  if (events.empty()) return Status::Ok();
  return WithReconnect([&]() -> Status {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN"));
    Params p;
    for (const wire::NodeEvent& e : events) {
      p.Clear();
      p.Text(e.cluster());
      p.Text(e.node());
      p.Number(e.time_start());
      p.Number(e.time_end());
      p.Text(e.state());
      p.Binary(e.SerializeAsString());
      const char* const* values = p.values();
      PgResult r(PQexecParams(conn_, kUpsertEvent, p.size(), nullptr, values, p.lengths(),
                              p.formats(), 0));
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
        Status s = Error(r.get(), "storing the event of node " + e.node());
        if (!ConnectionBroken()) (void)Exec("ROLLBACK");
        return s;
      }
    }
    return Exec("COMMIT");
  });
}

Result<std::vector<wire::NodeEvent>> PgsqlStore::QueryNodeEvents(
    const wire::QueryNodeEventsRequest& query) {
  std::string sql = "SELECT record FROM node_events WHERE true";
  Params p;
  auto in_list = [&](const char* column, const auto& values) {
    if (values.empty()) return;
    sql += fmt::format(" AND {} IN (", column);
    for (int i = 0; i < values.size(); ++i) {
      p.Text(values[i]);
      sql += fmt::format("{}${}", i == 0 ? "" : ",", p.size());
    }
    sql += ")";
  };
  if (!query.cluster().empty()) {
    p.Text(query.cluster());
    sql += fmt::format(" AND cluster = ${}", p.size());
  }
  in_list("node", query.nodes());
  in_list("state", query.states());
  if (query.window_end() > 0) {
    p.Number(query.window_end());
    sql += fmt::format(" AND time_start <= ${}", p.size());
  }
  p.Number(query.window_start());
  sql += fmt::format(" AND (time_end = 0 OR time_end >= ${})", p.size());
  if (query.open_only()) sql += " AND time_end = 0";
  sql += " ORDER BY time_start, node COLLATE \"C\"";  // Byte order, as SQLite sorts.
  return WithReconnect([&]() -> Result<std::vector<wire::NodeEvent>> {
    const char* const* values = p.values();
    PgResult r(
        PQexecParams(conn_, sql.c_str(), p.size(), nullptr, values, p.lengths(), p.formats(), 1));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return Error(r.get(), "reading node events");
    std::vector<wire::NodeEvent> out;
    for (int row = 0; row < PQntuples(r.get()); ++row) {
      wire::NodeEvent e;
      if (!e.ParseFromArray(PQgetvalue(r.get(), row, 0), PQgetlength(r.get(), row, 0))) {
        return Status(StatusCode::kCorruption, "a stored node event does not parse");
      }
      out.push_back(std::move(e));
    }
    return out;
  });
}

Status PgsqlStore::AddEntities(const std::vector<wire::AcctEntity>& entities) {
  return WithReconnect([&]() -> Status {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN"));
    Params p;
    for (const wire::AcctEntity& e : entities) {
      p.Clear();
      p.Text(e.kind());
      p.Text(e.name());
      p.Binary(e.SerializeAsString());
      const char* const* values = p.values();
      PgResult r(PQexecParams(conn_,
                              "INSERT INTO entities (kind, name, record) VALUES ($1, $2, $3)", 3,
                              nullptr, values, p.lengths(), p.formats(), 0));
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
        Status s = IsUniqueViolation(r.get())
                       ? Status(StatusCode::kAlreadyExists,
                                fmt::format("{} {} already exists", e.kind(), e.name()))
                       : Error(r.get(), "adding " + e.name());
        if (!ConnectionBroken()) (void)Exec("ROLLBACK");
        return s;
      }
    }
    return Exec("COMMIT");
  });
}

Status PgsqlStore::ReplaceEntities(const std::vector<wire::AcctEntity>& entities) {
  return WithReconnect([&]() -> Status {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN"));
    Params p;
    for (const wire::AcctEntity& e : entities) {
      p.Clear();
      p.Text(e.kind());
      p.Text(e.name());
      p.Binary(e.SerializeAsString());
      const char* const* values = p.values();
      PgResult r(PQexecParams(conn_,
                              "UPDATE entities SET record = $3 WHERE kind = $1 AND name = $2", 3,
                              nullptr, values, p.lengths(), p.formats(), 0));
      Status s = Status::Ok();
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
        s = Error(r.get(), "updating " + e.name());
      } else if (std::string(PQcmdTuples(r.get())) == "0") {
        s = Status(StatusCode::kNotFound, fmt::format("{} {} doesn't exist", e.kind(), e.name()));
      }
      if (!s.ok()) {
        if (!ConnectionBroken()) (void)Exec("ROLLBACK");
        return s;
      }
    }
    return Exec("COMMIT");
  });
}

Result<std::vector<wire::AcctEntity>> PgsqlStore::ListEntities(
    const std::string& kind, const std::vector<std::string>& names) {
  Params p;
  p.Text(kind);
  std::string sql = "SELECT record FROM entities WHERE kind = $1";
  for (size_t i = 0; i < names.size(); ++i) {
    p.Text(names[i]);
    sql += fmt::format("{}${}", i == 0 ? " AND name IN (" : ",", p.size());
  }
  if (!names.empty()) sql += ")";
  sql += " ORDER BY name COLLATE \"C\"";  // Byte order, as SQLite sorts.
  return WithReconnect([&]() -> Result<std::vector<wire::AcctEntity>> {
    const char* const* values = p.values();
    PgResult r(
        PQexecParams(conn_, sql.c_str(), p.size(), nullptr, values, p.lengths(), p.formats(), 1));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) return Error(r.get(), "listing " + kind);
    std::vector<wire::AcctEntity> out;
    for (int row = 0; row < PQntuples(r.get()); ++row) {
      wire::AcctEntity e;
      if (!e.ParseFromArray(PQgetvalue(r.get(), row, 0), PQgetlength(r.get(), row, 0))) {
        return Status(StatusCode::kCorruption, "a stored " + kind + " does not parse");
      }
      out.push_back(std::move(e));
    }
    return out;
  });
}

Result<std::vector<std::string>> PgsqlStore::DeleteEntities(const std::string& kind,
                                                            const std::vector<std::string>& names) {
  return WithReconnect([&]() -> Result<std::vector<std::string>> {
    ROTA_RETURN_IF_ERROR(Exec("BEGIN"));
    std::vector<std::string> deleted;
    Params p;
    for (const std::string& name : names) {
      p.Clear();
      p.Text(kind);
      p.Text(name);
      const char* const* values = p.values();
      PgResult r(PQexecParams(conn_, "DELETE FROM entities WHERE kind = $1 AND name = $2", 2,
                              nullptr, values, p.lengths(), p.formats(), 0));
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
        Status s = Error(r.get(), "deleting " + name);
        if (!ConnectionBroken()) (void)Exec("ROLLBACK");
        return s;
      }
      if (std::string(PQcmdTuples(r.get())) != "0") deleted.push_back(name);
    }
    ROTA_RETURN_IF_ERROR(Exec("COMMIT"));
    return deleted;
  });
}

}  // namespace rota::dbd
