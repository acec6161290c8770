#pragma once

// A site's own history from `sacct --json` (Rota's, or Slurm's 22.05 and
// later: openapi/dbv0.0.38 onwards) as a trace, read as sacct_reader.h reads
// the -P export. Per job: time.submission/start/end (epoch seconds),
// time.limit (minutes; from Slurm 23.02 an object {set, infinite, number}),
// required.CPUs or the cpu entry of tres.allocated, allocation_nodes, the
// gres/gpu entries of tres.allocated, user, partition, job_id.

#include <string_view>

#include "common/status.h"
#include "sim/trace_job.h"

namespace rota::sim {

// Not JSON, or no "jobs" list, is an error; a job object missing what a
// replay needs is counted as skipped, as in the -P reader.
Result<Trace> ParseSacctJson(std::string_view text, uint64_t max_jobs = 0);

// True when `text` looks like a JSON document (first non-blank is '{').
bool LooksLikeJson(std::string_view text);

}  // namespace rota::sim
