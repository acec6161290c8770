#pragma once

// Replays a trace through the real controller core: a virtual clock, events
// for submissions and job ends, and fake nodes that register at the start and
// "run" each launched job for its trace runtime. No daemons, sockets, threads
// or sleeping; the same trace and configuration give the same decisions.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "sim/policy.h"
#include "sim/runtime_predictions.h"
#include "sim/trace_job.h"

namespace rota::sim {

// Which time limit a job asks for.
enum class Estimates {
  kUser,   // The trace's requested time (its runtime when the trace has none)
  kExact,  // The job's actual runtime
  // The user's time limit still ends the job, but the scheduler plans with a
  // prediction: the mean runtime of the user's last two finished jobs, never
  // more than the limit (Tsafrir, Etsion and Feitelson's predictor). The
  // controller's own, SchedulerParameters=rota_predict_runtime.
  kPredicted,
};

// The simulated clock starts here (the trace's second 0): a plausible Unix
// time, since the core treats 0 as "not set" in several places.
inline constexpr int64_t kSimEpoch = 1'000'000'000;

struct SimProgress {
  uint64_t submitted = 0;
  uint64_t finished = 0;
  uint64_t total = 0;
  int64_t sim_time_s = 0;  // From the trace's start
  double wall_s = 0;
};

struct SimOptions {
  Estimates estimates = Estimates::kUser;
  Policy policy = Policy::kFcfs;  // Handed to the core in place of the file's (PolicyFor)
  // Called about every `progress_every_s` of wall time; may be empty.
  std::function<void(const SimProgress&)> progress;
  double progress_every_s = 2.0;
  // Plan every backfill pass in full, as the controller does, even one that
  // can start no job (each needs more than is free): the same starts, more
  // work. Off, such passes are skipped (ControllerCore::SetBackfillOnlyToStart);
  // tests turn it on to show that skipping changes nothing.
  bool plan_every_pass = false;
  // Measure start forecasts: after the pass that follows a job's submission,
  // when it is still pending, the start the planner gives it with every job
  // ahead reserved (ControllerCore::ForecastStart, what squeue --start shows
  // under Slurm's default), and its P50/P90 range from the forecasts that
  // had turned out by then (model/start_forecast.h). Costs a plan of the
  // queue per submission.
  bool forecasts = false;
  // With Estimates::kPredicted: each job's planned runtime from this list
  // (`rota-sim --predictions`) instead of the controller's own predictor;
  // a job not listed is planned with its limit. Null: the controller predicts.
  const RuntimePredictions* predictions = nullptr;
};

// What happened to one trace job. Times are seconds from the trace's start.
struct JobOutcome {
  uint64_t trace_id = 0;
  uint32_t job_id = 0;  // The controller's id; 0 when refused
  int64_t submit = 0;
  int64_t start = -1;  // -1: never started
  int64_t end = -1;
  uint32_t nodes = 0;
  uint32_t cpus = 0;
  uint32_t gpus = 0;
  bool timed_out = false;  // Reached its time limit (the core's TIMEOUT path)
  // The start forecast at submission (SimOptions::forecasts); -1: none (it
  // started at once, or no plan within the window). The range is -1 until
  // enough forecasts were measured.
  int64_t forecast = -1;
  int64_t forecast_p50 = -1;
  int64_t forecast_p90 = -1;
  std::string refused;  // The controller's answer when it refused the submission
};

struct SimResult {
  std::vector<JobOutcome> jobs;     // In trace order
  std::vector<double> pass_cpu_us;  // CPU time of each Tick (timers + main pass)
  uint64_t refused = 0;
  uint64_t never_started = 0;  // Still pending when nothing else could happen
  uint64_t timed_out = 0;
  double wall_s = 0;  // Wall time of the whole replay
};

class Simulator {
 public:
  // `config` as loaded; the simulator applies ForSimulation itself.
  Simulator(const conf::ClusterConfig& config, SimOptions options);

  SimResult Run(const std::vector<TraceJob>& jobs);

 private:
  std::shared_ptr<const conf::ClusterConfig> config_;
  sched::SchedulingPolicy policy_;  // The replay's, in place of config_'s
  SimOptions options_;
};

}  // namespace rota::sim
