#pragma once

// One job of a workload trace, in the trace's own terms, before the simulator
// turns it into a submission. Times are seconds from the trace's start.

#include <cstdint>
#include <string>
#include <vector>

namespace rota::sim {

struct TraceJob {
  uint64_t id = 0;           // The trace's job number (kept for the per-job CSV)
  int64_t submit_s = 0;      // Seconds from the start of the trace
  int64_t runtime_s = 0;     // How long it really ran
  int64_t requested_s = -1;  // The user's time limit; -1: the trace does not say
  uint32_t processors = 0;   // Tasks (one CPU each unless cpus_per_task says otherwise)
  uint32_t cpus_per_task = 1;
  uint32_t nodes = 0;    // 0: as few as the processors need (the scheduler chooses)
  uint32_t gpus = 0;     // Whole GPUs for the job, spread evenly over its nodes (one without)
  std::string gpu_type;  // "" any model
  uint64_t mem_mb = 0;   // 0: not tracked
  int64_t user = -1;     // Numeric ids from the trace; -1 unknown
  int64_t group = -1;
  int64_t queue = -1;
};

// What a reader left out, and why, so a run can say what it did not replay.
struct ReadStats {
  uint64_t lines = 0;               // Job lines seen (comments and blanks excluded)
  uint64_t read = 0;                // Jobs kept
  uint64_t skipped_runtime = 0;     // Runtime missing or <= 0
  uint64_t skipped_processors = 0;  // Processors missing or <= 0
  uint64_t skipped_malformed = 0;   // Too few fields or not numbers
  uint64_t rounded_gpus = 0;        // Fractional GPU shares rounded up to a whole GPU
};

struct Trace {
  std::vector<TraceJob> jobs;  // In the trace's order
  ReadStats stats;
  uint32_t machine_processors = 0;  // The header's MaxProcs (or MaxNodes); 0: not given
};

}  // namespace rota::sim
