#pragma once

// Where rotadbd keeps accounting: job attempts now; associations and QoS to
// come. One interface, so that the SQLite backend (sqlite_store.h) and the
// PostgreSQL one (pgsql_store.h) are interchangeable; accounting_store_test.cc
// runs the same cases against both.
//
// Thread confinement: an AccountingStore is used by one thread at a time
// (rotadbd's storage thread).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting.pb.h"
#include "accounting_admin.pb.h"
#include "common/status.h"
#include "node_events.pb.h"

namespace rota::dbd {

class AccountingStore {
 public:
  virtual ~AccountingStore() = default;

  // Stores each record, keyed by (cluster, job_id, restarts), in one
  // transaction. A record for an attempt already stored replaces it, except
  // that an ended attempt is never replaced by a record of it still running
  // (a late or repeated start record). Storing the same records again changes
  // nothing.
  virtual Status UpsertJobs(const std::vector<wire::AccountingJob>& jobs) = 0;

  // The attempts matching `query`, ordered by job id then attempt; only the
  // last attempt of each job unless query.all_attempts().
  virtual Result<std::vector<wire::AccountingJob>> QueryJobs(
      const wire::QueryJobsRequest& query) = 0;

  // Node events keyed by (cluster, node, time_start), in one transaction. An
  // event already stored is replaced, except that a closed one is never
  // reopened by a repeated or late record of it still open.
  virtual Status UpsertNodeEvents(const std::vector<wire::NodeEvent>& events) = 0;
  // The events matching `query`, by start time then node.
  virtual Result<std::vector<wire::NodeEvent>> QueryNodeEvents(
      const wire::QueryNodeEventsRequest& query) = 0;

  // sacctmgr's accounts, users and QoS, keyed by (kind, name). Adding one that
  // exists is kAlreadyExists and adds nothing of the batch.
  virtual Status AddEntities(const std::vector<wire::AcctEntity>& entities) = 0;
  // By name; all of `kind` when `names` is empty.
  virtual Result<std::vector<wire::AcctEntity>> ListEntities(
      const std::string& kind, const std::vector<std::string>& names) = 0;
  // Overwrites existing entities (sacctmgr modify), all or none; kNotFound
  // when one does not exist.
  virtual Status ReplaceEntities(const std::vector<wire::AcctEntity>& entities) = 0;
  // Returns the names that existed (and are now gone).
  virtual Result<std::vector<std::string>> DeleteEntities(
      const std::string& kind, const std::vector<std::string>& names) = 0;

  // The schema version the store is at (after migration).
  virtual int SchemaVersion() = 0;
};

}  // namespace rota::dbd
