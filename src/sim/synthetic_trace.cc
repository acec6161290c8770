#include "sim/synthetic_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rota::sim {
namespace {

// SplitMix64: tiny, fast, and the same sequence everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), from the top 53 bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace

std::vector<TraceJob> GenerateTrace(const SyntheticOptions& options) {
  SplitMix64 rng(options.seed);
  std::vector<TraceJob> jobs(options.jobs);
  const uint32_t processors = std::max<uint32_t>(options.processors, 1);
  int max_log = 0;
  while ((2u << max_log) <= processors / 2) ++max_log;  // Largest job: half the machine
  double work = 0;
  for (uint64_t i = 0; i < options.jobs; ++i) {
    TraceJob& j = jobs[i];
    j.id = i + 1;
    // Half the jobs serial, the rest 2^k processors.
    int k = rng.Uniform() < 0.5 ? 0 : 1 + static_cast<int>(rng.Uniform() * max_log);
    j.processors = std::min<uint32_t>(1u << std::min(k, max_log), processors);
    // Log-uniform from 10 s to 10 h.
    j.runtime_s = static_cast<int64_t>(std::exp(std::log(10.0) + rng.Uniform() * std::log(3600.0)));
    j.runtime_s = std::max<int64_t>(j.runtime_s, 1);
    // Users over-estimate by 1x to 5x, in whole minutes.
    double factor = 1 + 4 * rng.Uniform();
    j.requested_s = (static_cast<int64_t>(j.runtime_s * factor) + 59) / 60 * 60;
    j.user = static_cast<int64_t>(rng.Next() % 64);
    j.group = j.user % 8;
    j.queue = 1;
    work += static_cast<double>(j.runtime_s) * j.processors;
  }
  const double mean_gap =
      options.jobs == 0 ? 0
                        : work / (processors * options.load) / static_cast<double>(options.jobs);
  double t = 0;
  for (TraceJob& j : jobs) {
    j.submit_s = static_cast<int64_t>(t);
    t += -std::log(1 - rng.Uniform()) * mean_gap;
  }
  return jobs;
}

void WriteSwf(std::ostream& out, const std::vector<TraceJob>& jobs,
              const SyntheticOptions& options) {
  out << "; Version: 2.2\n; Note: synthetic workload written by rota-sim --generate\n";
  out << fmt::format("; MaxJobs: {}\n; MaxProcs: {}\n; Load: {}\n; Seed: {}\n", jobs.size(),
                     options.processors, options.load, options.seed);
  for (const TraceJob& j : jobs) {
    out << fmt::format("{} {} -1 {} {} -1 -1 {} {} -1 1 {} {} -1 {} -1 -1 -1\n", j.id, j.submit_s,
                       j.runtime_s, j.processors, j.processors, j.requested_s, j.user, j.group,
                       j.queue);
  }
}

}  // namespace rota::sim
