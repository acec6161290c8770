#pragma once

// Which jobs a listing request asks for (squeue -j/-u/-p/-t/-A/-q).

#include "rota.pb.h"

namespace rota::ctld {

// True when `job` passes every filter of `request`. Finished jobs are listed
// only when named by id, asked for by state, or include_finished is set.
bool JobMatches(const wire::JobRecord& job, const wire::ListJobsRequest& request);

}  // namespace rota::ctld
