#pragma once

// The dashboard: its page and script (served to anyone: they hold no data;
// the page asks for a user name and token and sends them with every call),
// and GET /rota/v1/dashboard, everything one view shows in one answer, read
// with the caller's rights: nodes with each GPU as a cell (who holds it, or
// why it is unusable), jobs with their allocation, planned start, pending
// reason in words and priority factors, and the scheduler's statistics.

#include <string>
#include <string_view>

#include "rest/rest_json.h"
#include "rest/rest_router.h"
#include "rota.pb.h"

namespace rota::rest {

void AddDashboardRoutes(Router& router);

// A pending reason code in words, for people ("Resources" -> "waiting for
// resources: ..."). Unknown codes come back as they are.
std::string ReasonInWords(std::string_view reason);

// Every GPU of `node` as a cell: index, type, state (allocated, idle, down,
// reserved) and the job holding it, from the node's GRES and the jobs'
// allocations on it.
Json GpuCells(const wire::NodeInfo& node, const wire::ListJobsResponse& jobs);

}  // namespace rota::rest
