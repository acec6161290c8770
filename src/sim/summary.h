#pragma once

// The figures a replay is judged by, computed from its per-job outcomes, and
// the two outputs: the per-job CSV and the `name value` summary lines.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace rota::sim {

// Bounded slowdown's floor on the runtime, so that very short jobs do not
// dominate the mean (Feitelson's customary 10 s).
inline constexpr double kBsldTauS = 10;

struct Summary {
  uint64_t jobs = 0;       // Jobs that started and ended
  double utilization = 0;  // Used CPU-seconds / (CPUs x makespan)
  double gpu_utilization = 0;
  double wait_mean_s = 0;
  double wait_median_s = 0;
  double wait_p95_s = 0;        // Nearest rank
  double bsld_mean = 0;         // max(1, (wait + run) / max(run, tau))
  int64_t makespan_s = 0;       // First submission to last end
  double sched_jobs_per_s = 0;  // Jobs replayed per wall second
  double pass_cpu_mean_us = 0;
  double pass_cpu_p99_us = 0;
  uint64_t passes = 0;
  uint64_t refused = 0;
  uint64_t never_started = 0;
  uint64_t timed_out = 0;
  // Start forecasts (SimOptions::forecasts), over the jobs that had one and
  // started: the error of the forecast start, and how often the start came
  // by the P50 and the P90 of the range (over the jobs that had one).
  uint64_t forecasts = 0;
  double forecast_mae_s = 0;
  double forecast_within_15min = 0;  // Share with |start - forecast| <= 900 s
  uint64_t forecast_ranges = 0;
  double forecast_by_p50 = 0;
  double forecast_by_p90 = 0;
};

Summary Summarize(const SimResult& result, uint64_t total_cpus, uint64_t total_gpus);

// Nearest-rank percentile (0 < p <= 100) of `values`, which it sorts; 0 when empty.
double Percentile(std::vector<double>& values, double p);
// The middle value (mean of the two middle ones for an even count); 0 when empty.
double Median(std::vector<double>& values);

// `name value` lines, the summary's last word. Without `timing`, the lines
// that depend on the host's speed are left out, so that two runs of the same
// input print byte-identical text.
void WriteSummary(std::ostream& out, const Summary& summary, bool timing);

// One line per trace job, in trace order: id,submit,start,end,wait,nodes,cpus,gpus,state,
// and forecast,forecast_p50,forecast_p90 when the replay made forecasts (-1: none).
void WriteJobsCsv(std::ostream& out, const SimResult& result);

}  // namespace rota::sim
