#pragma once

// The Standard Workload Format (Feitelson's Parallel Workloads Archive): one
// job per line, 18 whitespace-separated numbers, ';' starts a header comment.
// Read plain or gzip-compressed (.swf.gz) files directly.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sim/trace_job.h"

namespace rota::sim {

struct SwfOptions {
  uint64_t max_jobs = 0;  // 0: all
};

// Parses one trace held in memory. A job's size is its allocated processor
// count (field 5, what ran), or the requested one (field 8) when the log
// leaves the first out. Jobs with a runtime or processor count
// that is missing or <= 0 are skipped (as the archive's users customarily do:
// they never ran, or the log lost them) and counted in stats.
Trace ParseSwf(std::string_view text, const SwfOptions& options = {});

// Reads `path`, gunzipping when it is compressed (zlib tells by the header, so
// the extension does not matter).
Result<Trace> ReadSwfFile(const std::string& path, const SwfOptions& options = {});

// Reads a whole file, gunzipping when needed.
Result<std::string> ReadMaybeGzip(const std::string& path);

}  // namespace rota::sim
