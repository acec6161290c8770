#include "sim/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rota::sim {
namespace {

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

const char* StateOf(const JobOutcome& o) {
  if (!o.refused.empty()) return "REFUSED";
  if (o.start < 0) return "PENDING";
  if (o.end < 0) return "RUNNING";
  return o.timed_out ? "TIMEOUT" : "COMPLETED";
}

}  // namespace

double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  size_t index = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size())));
  return values[index - 1];
}

double Median(std::vector<double>& values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Summary Summarize(const SimResult& result, uint64_t total_cpus, uint64_t total_gpus) {
  Summary s;
  std::vector<double> waits;
  std::vector<double> bslds;
  double cpu_seconds = 0;
  double gpu_seconds = 0;
  int64_t first_submit = std::numeric_limits<int64_t>::max();
  int64_t last_end = std::numeric_limits<int64_t>::min();
  for (const JobOutcome& o : result.jobs) {
    if (!o.refused.empty()) continue;
    first_submit = std::min(first_submit, o.submit);
    if (o.start < 0 || o.end < 0) continue;
    last_end = std::max(last_end, o.end);
    const double wait = static_cast<double>(o.start - o.submit);
    const double run = static_cast<double>(o.end - o.start);
    waits.push_back(wait);
    bslds.push_back(std::max(1.0, (wait + run) / std::max(run, kBsldTauS)));
    cpu_seconds += run * o.cpus;
    gpu_seconds += run * o.gpus;
  }
  s.jobs = waits.size();
  if (s.jobs > 0) {
    s.makespan_s = last_end - first_submit;
    double span = static_cast<double>(std::max<int64_t>(s.makespan_s, 1));
    if (total_cpus > 0) s.utilization = cpu_seconds / (static_cast<double>(total_cpus) * span);
    if (total_gpus > 0) s.gpu_utilization = gpu_seconds / (static_cast<double>(total_gpus) * span);
  }
  s.wait_mean_s = Mean(waits);
  s.bsld_mean = Mean(bslds);
  s.wait_median_s = Median(waits);
  s.wait_p95_s = Percentile(waits, 95);
  std::vector<double> passes = result.pass_cpu_us;
  s.passes = passes.size();
  s.pass_cpu_mean_us = Mean(passes);
  s.pass_cpu_p99_us = Percentile(passes, 99);
  s.sched_jobs_per_s = result.wall_s > 0 ? static_cast<double>(s.jobs) / result.wall_s : 0;
  s.refused = result.refused;
  s.never_started = result.never_started;
  s.timed_out = result.timed_out;
  std::vector<double> errors;
  uint64_t by_p50 = 0;
  uint64_t by_p90 = 0;
  uint64_t within = 0;
  for (const JobOutcome& o : result.jobs) {
    if (o.forecast < 0 || o.start < 0) continue;
    const double error = std::abs(static_cast<double>(o.start - o.forecast));
    errors.push_back(error);
    if (error <= 900) ++within;
    if (o.forecast_p50 < 0) continue;
    ++s.forecast_ranges;
    if (o.start <= o.forecast_p50) ++by_p50;
    if (o.start <= o.forecast_p90) ++by_p90;
  }
  s.forecasts = errors.size();
  s.forecast_mae_s = Mean(errors);
  if (s.forecasts > 0) s.forecast_within_15min = static_cast<double>(within) / s.forecasts;
  if (s.forecast_ranges > 0) {
    s.forecast_by_p50 = static_cast<double>(by_p50) / s.forecast_ranges;
    s.forecast_by_p90 = static_cast<double>(by_p90) / s.forecast_ranges;
  }
  return s;
}

void WriteSummary(std::ostream& out, const Summary& s, bool timing) {
  out << fmt::format("jobs {}\n", s.jobs);
  out << fmt::format("utilization {:.4f}\n", s.utilization);
  if (s.gpu_utilization > 0) out << fmt::format("gpu_utilization {:.4f}\n", s.gpu_utilization);
  out << fmt::format("wait_mean_s {:.1f}\n", s.wait_mean_s);
  out << fmt::format("wait_median_s {:.1f}\n", s.wait_median_s);
  out << fmt::format("wait_p95_s {:.1f}\n", s.wait_p95_s);
  out << fmt::format("bsld_mean {:.3f}\n", s.bsld_mean);
  out << fmt::format("makespan_s {}\n", s.makespan_s);
  out << fmt::format("timed_out {}\n", s.timed_out);
  out << fmt::format("refused {}\n", s.refused);
  out << fmt::format("never_started {}\n", s.never_started);
  out << fmt::format("passes {}\n", s.passes);
  if (s.forecasts > 0) {
    out << fmt::format("forecasts {}\n", s.forecasts);
    out << fmt::format("forecast_mae_s {:.1f}\n", s.forecast_mae_s);
    out << fmt::format("forecast_within_15min {:.4f}\n", s.forecast_within_15min);
    out << fmt::format("forecast_ranges {}\n", s.forecast_ranges);
    out << fmt::format("forecast_by_p50 {:.4f}\n", s.forecast_by_p50);
    out << fmt::format("forecast_by_p90 {:.4f}\n", s.forecast_by_p90);
  }
  if (timing) {
    out << fmt::format("sched_jobs_per_s {:.0f}\n", s.sched_jobs_per_s);
    out << fmt::format("pass_cpu_mean_us {:.1f}\n", s.pass_cpu_mean_us);
    out << fmt::format("pass_cpu_p99_us {:.1f}\n", s.pass_cpu_p99_us);
  }
}

void WriteJobsCsv(std::ostream& out, const SimResult& result) {
  const bool forecasts = std::any_of(result.jobs.begin(), result.jobs.end(),
                                     [](const JobOutcome& o) { return o.forecast >= 0; });
  out << "id,submit,start,end,wait,nodes,cpus,gpus,state"
      << (forecasts ? ",forecast,forecast_p50,forecast_p90\n" : "\n");
  for (const JobOutcome& o : result.jobs) {
    int64_t wait = o.start >= 0 ? o.start - o.submit : -1;
    out << fmt::format("{},{},{},{},{},{},{},{},{}", o.trace_id, o.submit, o.start, o.end, wait,
                       o.nodes, o.cpus, o.gpus, StateOf(o));
    if (forecasts) out << fmt::format(",{},{},{}", o.forecast, o.forecast_p50, o.forecast_p90);
    out << '\n';
  }
}

}  // namespace rota::sim
