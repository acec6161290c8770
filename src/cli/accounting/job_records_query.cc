#include "cli/accounting/job_records_query.h"

#include <utility>

#include "api/dbd_methods.h"

namespace rota::cli {

Result<std::vector<wire::AccountingJob>> QueryJobRecords(AccountingClient& client,
                                                         const wire::QueryJobsRequest& query) {
  wire::QueryJobsResponse answer;
  if (Status s = client.Call(api::kDbdQueryJobs, query, &answer); !s.ok()) return s;
  // Moved, not copied: a protobuf message moves by swapping its innards.
  std::vector<wire::AccountingJob> jobs;
  jobs.reserve(static_cast<size_t>(answer.jobs_size()));
  for (wire::AccountingJob& j : *answer.mutable_jobs()) jobs.push_back(std::move(j));
  return jobs;
}

}  // namespace rota::cli
