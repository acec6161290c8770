#pragma once

// How a trace job becomes what a user would have submitted: sbatch -n P
// --time T (--gres gpu:N --mem M when the trace says), as the trace's user.

#include "ctld/core/caller.h"
#include "rota.pb.h"
#include "sim/simulator.h"
#include "sim/trace_job.h"

namespace rota::sim {

// The time limit the job asks for, in seconds (at least one).
int64_t TimeLimitFor(const TraceJob& job, Estimates estimates);

// What the job's user submits. With Estimates::kPredicted the controller
// plans it with its own prediction, unless `predictions` is given: then the
// job carries its listed prediction (never more than its limit), or its limit
// when it is not listed.
wire::SubmitJobRequest SubmissionFor(const TraceJob& job, Estimates estimates,
                                     const RuntimePredictions* predictions = nullptr);

// Trace user u becomes uid 10000+u named "u<u>" (group likewise); unknown
// users are one user "unknown".
ctld::Caller CallerFor(const TraceJob& job);

}  // namespace rota::sim
