#pragma once

// A synthetic SWF workload for scale tests: rigid jobs with power-of-two
// sizes, log-uniform runtimes, over-estimated time limits and Poisson
// arrivals spaced so that the offered load on `processors` is `load`.
// Deterministic: the same options give the same bytes (its own generator, no
// std:: distributions, whose results differ between standard libraries).

#include <cstdint>
#include <ostream>
#include <vector>

#include "sim/trace_job.h"

namespace rota::sim {

struct SyntheticOptions {
  uint64_t jobs = 1000;
  uint32_t processors = 128;  // The machine the load is computed for
  double load = 0.7;          // Offered work / capacity
  uint64_t seed = 1;
};

std::vector<TraceJob> GenerateTrace(const SyntheticOptions& options);

// The jobs as SWF lines, with a header saying how they were made.
void WriteSwf(std::ostream& out, const std::vector<TraceJob>& jobs,
              const SyntheticOptions& options);

}  // namespace rota::sim
