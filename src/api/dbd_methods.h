#pragma once

// RPC method ids of the accounting daemon's (rotadbd) service. Ids 50-69 are
// accounting's; never renumber.

#include <cstdint>

namespace rota::api {

enum DbdMethod : uint16_t {
  kDbdPing = 50,        // Empty -> Empty
  kDbdRecordJobs = 51,  // (controller) RecordJobsRequest -> RecordJobsResponse
  kDbdQueryJobs = 52,   // QueryJobsRequest -> QueryJobsResponse
  // sacctmgr (changes: root and SlurmUser only)
  kDbdAddEntities = 53,     // AddEntitiesRequest -> Empty
  kDbdListEntities = 54,    // ListEntitiesRequest -> ListEntitiesResponse
  kDbdDeleteEntities = 55,  // DeleteEntitiesRequest -> DeleteEntitiesResponse
  kDbdModifyEntities = 56,  // ModifyEntitiesRequest -> ModifyEntitiesResponse
  // sacctmgr list events, sreport's Down figures
  kDbdQueryNodeEvents = 57,  // QueryNodeEventsRequest -> QueryNodeEventsResponse
  // sreport's user and account usage reports: kDbdQueryJobs's records, which
  // PrivateData=usage also narrows to the caller's own.
  kDbdQueryUsage = 58,  // QueryJobsRequest -> QueryJobsResponse
};

}  // namespace rota::api
