#pragma once

// How sacct and seff read job records: one QueryJobs call to rotadbd
// (AccountingClient) and the records it answers, moved out of the response.

#include <vector>

#include "accounting.pb.h"
#include "cli/client/accounting_client.h"
#include "common/status.h"

namespace rota::cli {

// The job attempts `query` selects, as rotadbd orders them (by job id, then
// attempt). Errors: the call's (rotadbd unreachable, refused).
Result<std::vector<wire::AccountingJob>> QueryJobRecords(AccountingClient& client,
                                                         const wire::QueryJobsRequest& query);

}  // namespace rota::cli
