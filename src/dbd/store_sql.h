#pragma once

// SQL that reads the same in SQLite and PostgreSQL, and the shape of what
// they store, shared by both stores.

#include <string>

#include "accounting.pb.h"

namespace rota::dbd {

// A job's script and environment live in columns of their own, beside the
// record (which is stored without them): most queries never read them.
inline const wire::AccountingJob& RecordWithoutTexts(const wire::AccountingJob& job,
                                                     wire::AccountingJob& scratch) {
  if (job.script().empty() && job.environment().empty()) return job;
  scratch = job;
  scratch.clear_script();
  scratch.clear_environment();
  return scratch;
}

// The column in a job query's select list when it is asked for, else NULL.
inline std::string TextColumn(bool wanted, const char* column) { return wanted ? column : "NULL"; }

// A common table expression `clusters(name)`: the distinct clusters of
// job_attempts, one primary-key seek each. Neither engine skips through an
// index by itself, and the key starts with the cluster, so a query by job id
// that names every cluster seeks each job instead of reading them all.
inline constexpr const char* kEveryClusterCte = R"sql(
WITH RECURSIVE clusters(name) AS (
  SELECT MIN(cluster) FROM job_attempts
  UNION ALL
  SELECT (SELECT MIN(cluster) FROM job_attempts WHERE cluster > name) FROM clusters
  WHERE name IS NOT NULL)
)sql";

}  // namespace rota::dbd
