#pragma once

// SQL that reads the same in SQLite and PostgreSQL, shared by both stores.

namespace rota::dbd {

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
