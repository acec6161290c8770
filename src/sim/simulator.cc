#include "sim/simulator.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

#include "ctld/core/controller_core.h"
#include "model/start_forecast.h"
#include "sim/sim_cluster.h"
#include "sim/trace_submission.h"

namespace rota::sim {
namespace {

// CPU time of this thread: what a pass costs, whatever else runs on the host.
double ThreadCpuUs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// A batch job killed by SIGTERM, in waitpid's encoding.
constexpr uint32_t kKilledBySigterm = SIGTERM;

}  // namespace

Simulator::Simulator(const conf::ClusterConfig& config, SimOptions options)
    : config_(ForSimulation(config)),
      policy_(PolicyFor(options.policy, *config_, options.estimates == Estimates::kPredicted)),
      options_(std::move(options)) {}

SimResult Simulator::Run(const std::vector<TraceJob>& jobs) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point wall_start = Clock::now();
  Clock::time_point last_progress = wall_start;

  SimResult result;
  result.jobs.resize(jobs.size());
  // Submission order: by submit time, the trace's order for ties.
  std::vector<uint32_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return jobs[a].submit_s < jobs[b].submit_s; });
  auto submit_time = [&](uint32_t index) {
    return kSimEpoch + std::max<int64_t>(jobs[index].submit_s, 0);
  };

  ctld::ControllerCore core(config_);
  core.UseSchedulingPolicy(policy_);
  // Only the starts are the replay's result: backfill passes that could
  // start nothing are skipped rather than planned for squeue --start.
  core.SetBackfillOnlyToStart(!options_.plan_every_pass);
  int64_t now = kSimEpoch;
  {
    // Fake node daemons: all answer at the start and never stop.
    ctld::Effects ignored;
    for (const conf::NodeConfig& node : config_->nodes) {
      (void)core.NodeRegistered(node.name, now, now, ignored);
    }
  }

  std::vector<uint32_t> trace_index;  // By controller job id
  auto index_of = [&](uint32_t job_id) { return trace_index.at(job_id); };
  // Jobs that end by themselves, (end time, job id), earliest first.
  using End = std::pair<int64_t, uint32_t>;
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends;
  size_t next = 0;
  uint64_t pending = 0;
  uint64_t running = 0;
  uint64_t finished = 0;

  // How the forecasts made so far turned out, as the controller keeps it.
  model::StartForecastCalibration calibration;
  auto finish = [&](uint32_t job_id) {
    JobOutcome& o = result.jobs[index_of(job_id)];
    o.end = now - kSimEpoch;
    --running;
    ++finished;
  };
  // Carries out what the core asked: launches start the fake run; a
  // terminating signal (a time limit reached) is collected for an exit now.
  auto carry_out = [&](const ctld::Effects& effects, std::vector<uint32_t>& killed) {
    for (const ctld::LaunchJob& launch : effects.launches) {
      const wire::JobRecord& job = *launch.job;
      const uint32_t index = index_of(job.job_id());
      JobOutcome& o = result.jobs[index];
      o.start = now - kSimEpoch;
      if (o.forecast >= 0) calibration.Started(o.submit, o.forecast, o.start);
      o.nodes = static_cast<uint32_t>(job.nodes_size());
      o.cpus = job.alloc_cpus();
      o.gpus = job.alloc_gpus();
      const int64_t runtime = jobs[index].runtime_s;
      if (job.time_limit_s() < 0 || runtime <= job.time_limit_s()) {
        ends.emplace(now + runtime, job.job_id());
      } else {
        o.timed_out = true;  // The core's timer ends it at the limit.
      }
      --pending;
      ++running;
    }
    for (const ctld::SignalJob& signal : effects.signals) {
      if (!signal.terminate) continue;
      const JobOutcome& o = result.jobs[index_of(signal.job_id)];
      if (o.timed_out && o.end < 0) killed.push_back(signal.job_id);
    }
  };

  // Jobs killed at their time limit exit at once (the fake node needs no
  // KillWait); what their exits start is carried out, and so on.
  auto end_killed = [&](std::vector<uint32_t>& killed) {
    while (!killed.empty()) {
      ctld::Effects exits;
      for (uint32_t job_id : killed) {
        (void)core.JobExited(job_id, kKilledBySigterm, now, exits);
        finish(job_id);
        ++result.timed_out;
      }
      killed.clear();
      carry_out(exits, killed);
    }
  };

  while (true) {
    int64_t t = std::numeric_limits<int64_t>::max();
    if (next < order.size()) t = std::min(t, submit_time(order[next]));
    if (!ends.empty()) t = std::min(t, ends.top().first);
    if (running > 0) {
      // Time limits: the core knows when the next one is due. It may be early
      // (a job that already ended), never late.
      if (std::optional<int64_t> wake = core.NextWakeTime(); wake && *wake > now) {
        t = std::min(t, *wake);
      }
    }
    if (t == std::numeric_limits<int64_t>::max()) break;
    now = t;

    std::vector<uint32_t> killed;
    std::vector<uint32_t> submitted_now;  // Trace indexes, for forecasts
    ctld::Effects effects;
    // Ends first, so a job ending exactly at its limit completes; then the
    // time limits reached now. What all of them free is there for the jobs
    // submitted in this second and for its pass.
    while (!ends.empty() && ends.top().first == now) {
      uint32_t job_id = ends.top().second;
      ends.pop();
      (void)core.JobExited(job_id, 0, now, effects);
      finish(job_id);
    }
    if (running > 0) {
      if (std::optional<int64_t> wake = core.NextWakeTime(); wake && *wake <= now) {
        ctld::Effects timers;
        core.ExpireTimers(now, timers);
        carry_out(timers, killed);
        end_killed(killed);
      }
    }
    while (next < order.size() && submit_time(order[next]) == now) {
      const uint32_t index = order[next++];
      JobOutcome& o = result.jobs[index];
      o.trace_id = jobs[index].id;
      o.submit = now - kSimEpoch;
      Result<wire::SubmitJobResponse> r =
          core.Submit(SubmissionFor(jobs[index], options_.estimates, options_.predictions),
                      CallerFor(jobs[index]), now, effects);
      if (!r.ok()) {
        o.refused = r.status().message();
        ++result.refused;
        continue;
      }
      o.job_id = r->job_id();
      if (trace_index.size() <= o.job_id) trace_index.resize(o.job_id + 1, 0);
      trace_index[o.job_id] = index;
      ++pending;
      if (options_.forecasts) submitted_now.push_back(index);
    }
    carry_out(effects, killed);
    // One pass; when it timed jobs out, their exits come back at once (the
    // fake node needs no KillWait) and another pass hands out what they held.
    while (true) {
      ctld::Effects tick;
      const double cpu_start = ThreadCpuUs();
      core.Tick(now, tick);
      result.pass_cpu_us.push_back(ThreadCpuUs() - cpu_start);
      carry_out(tick, killed);
      if (killed.empty()) break;
      end_killed(killed);
    }
    // Forecasts for the jobs submitted now that the pass left pending.
    for (uint32_t index : submitted_now) {
      JobOutcome& o = result.jobs[index];
      if (o.start >= 0) continue;
      std::optional<int64_t> start = core.ForecastStart(o.job_id, now);
      if (!start) continue;
      o.forecast = *start - kSimEpoch;
      if (std::optional<model::StartRange> range =
              model::ForecastRange(*start, now, calibration.Ratios())) {
        o.forecast_p50 = range->p50 - kSimEpoch;
        o.forecast_p90 = range->p90 - kSimEpoch;
      }
    }

    if (options_.progress && (result.pass_cpu_us.size() & 1023) == 0) {
      Clock::time_point wall = Clock::now();
      if (std::chrono::duration<double>(wall - last_progress).count() >=
          options_.progress_every_s) {
        last_progress = wall;
        options_.progress({next, finished, jobs.size(), now - kSimEpoch,
                           std::chrono::duration<double>(wall - wall_start).count()});
      }
    }
  }
  result.never_started = pending;
  result.wall_s = std::chrono::duration<double>(Clock::now() - wall_start).count();
  return result;
}

}  // namespace rota::sim
