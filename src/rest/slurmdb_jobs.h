#pragma once

// /slurmdb/v0.0.38/jobs and /job/{job_id}: the query string read into one
// QueryJobsRequest for rotadbd plus the filters rotadbd does not apply, and
// its records turned into dbv0.0.38's "jobs" array (sacct --json's
// conversion, with the fields only the REST answer carries). Pure: the
// handlers in slurmdb_api.cc make the call.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accounting.pb.h"
#include "cli/accounting/sacct_job_selection.h"
#include "common/status.h"
#include "rest/rest_json.h"

namespace rota::rest {

struct JobsFilter {
  wire::QueryJobsRequest request;
  // Nothing can match (another cluster, or only states Rota never gives a
  // job): answer an empty list without asking rotadbd.
  bool matches_none = false;
  // step= or the {job_id} of /job/: the jobs, tasks and steps named.
  cli::SacctJobSelection selection;
  // Kept here from what rotadbd answers; empty passes everything.
  std::vector<std::string> names, qos, wckeys, reasons, groups, nodes;
  std::optional<int64_t> submitted_after;
  std::optional<int64_t> cpus_min, cpus_max, nodes_min, nodes_max, exit_code;
  bool skip_steps = false;
};

// The query parameters of GET /slurmdb/v0.0.38/jobs (names as slurmrestd's,
// any case). `local_cluster`: the only cluster rotadbd records. Times take
// sacct's forms (ParseEventTime) or Unix seconds. InvalidArgument, naming
// the parameter, for a value that does not parse, a parameter Rota cannot
// honour (association, constraints, reservation) or an unknown one.
Result<JobsFilter> ParseJobsQuery(const std::map<std::string, std::string>& query,
                                  std::string_view local_cluster, int64_t now);

// GET /slurmdb/v0.0.38/job/{job_id}: "28", "30_2", "28.batch" as sacct -j
// takes them; every attempt of the job. InvalidArgument for a bad id.
Result<JobsFilter> JobIdFilter(std::string_view job_id);

// `jobs` (rotadbd's answer) less what `filter` keeps out, as dbv0.0.38's
// "jobs" array. `now` gives running jobs their elapsed time.
Json JobsJson(std::vector<wire::AccountingJob> jobs, const JobsFilter& filter, int64_t now);

}  // namespace rota::rest
