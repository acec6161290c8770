#pragma once

// A site's own history as a trace: the output of
//
//   sacct -a -X -P -S START -E END -o
//   JobIDRaw,User,Partition,Submit,Start,End,Timelimit,NNodes,NCPUS,AllocTRES
//
// (Rota's or Slurm's sacct; `-p` with its trailing '|' too). Columns are found
// by their header names and may come in any order. Needed: Submit, Start, End
// (or Elapsed), and NCPUS, AllocCPUS or ReqCPUS. Used when present: JobIDRaw or
// JobID, Timelimit (the user's estimate), NNodes, AllocTRES/ReqTRES (gres/gpu,
// typed or not), User, Partition. Times are read as sacct prints them
// (YYYY-MM-DDTHH:MM:SS) and the trace starts at the earliest submission.

#include <string_view>

#include "common/status.h"
#include "sim/trace_job.h"

namespace rota::sim {

// A job that never started or has no end (Unknown), or ran for no time, is
// skipped and counted in stats.skipped_runtime; one without CPUs in
// skipped_processors; a line with the wrong number of fields or an unreadable
// time in skipped_malformed. Sizes of jobs that ran are taken from what they
// were allocated. A missing needed column is an error naming it.
Result<Trace> ParseSacctParsable(std::string_view text, uint64_t max_jobs = 0);

// True when `text` starts with a sacct -P/-p header (so rota-sim can tell a
// sacct export from SWF without being told).
bool LooksLikeSacctParsable(std::string_view text);

}  // namespace rota::sim
