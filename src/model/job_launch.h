#pragma once

// What a node daemon is told of a job (wire::JobLaunch, rota.proto), made
// from the controller's record at the edge: launches, prepares, the jobs of a
// step listing, and salloc's allocation. JobLaunch's fields are JobRecord's,
// same names and numbers (job_launch_test checks both that and that every
// one of them is copied here).

#include "rota.pb.h"

namespace rota::model {

wire::JobLaunch LaunchOf(const wire::JobRecord& job);

}  // namespace rota::model
