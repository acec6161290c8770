#pragma once

// What the controller learns from the jobs that ran, to plan better and to
// say how far its plans can be trusted:
// - each user's recent runtimes, from which a job is planned when
//   SchedulerParameters=rota_predict_runtime (sched/runtime_predictor.h);
//   planning only, the time limit still ends the job;
// - where each job's first planned start landed against its real start, so
//   that squeue and rota why show a plan as a range (model/start_forecast.h).

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/start_forecast.h"
#include "rota.pb.h"
#include "sched/runtime_predictor.h"

namespace rota::ctld {

class RuntimeForecasts {
 public:
  // A run of `job` ended in `state`. Its length counts for its user when the
  // job ended by itself or at its limit; not when it was cancelled, requeued
  // or preempted, which says nothing of how long it needed.
  void RunEnded(const wire::JobRecord& job, wire::JobState state);
  // The final states of runs that say how long their job needed.
  static constexpr std::array<wire::JobState, 4> kTellingStates = {
      wire::JOB_STATE_COMPLETED, wire::JOB_STATE_FAILED, wire::JOB_STATE_TIMEOUT,
      wire::JOB_STATE_OUT_OF_MEMORY};

  struct EndedRun {
    int64_t end_time = 0;
    uint32_t uid = 0;
    int64_t runtime_s = 0;
  };
  // `uid`'s run from `start_time` to `end_time` ending in `state`, when it
  // ran and tells (the one rule for the table's jobs and accounting's).
  static std::optional<EndedRun> TellingRun(uint32_t uid, int64_t start_time, int64_t end_time,
                                            wire::JobState state);
  // Forgets the runs learned and learns `runs` (in any order) instead: the
  // ended jobs a restarted controller kept, and accounting's older ones.
  void Relearn(std::vector<EndedRun> runs);

  // The runtime to plan a job of `uid` with a time limit of `limit_s`: its
  // user's prediction when there is one shorter than the limit, else 0 (plan
  // with the limit, as for a job without one).
  int64_t PlannedRuntime(uint32_t uid, int64_t limit_s) const;

  // The backfill pass planned `job` to start at `start` (> 0) at `now`: the
  // first such plan is kept in the record, to be measured when it starts.
  static void NotePlanned(wire::JobRecord& job, int64_t start, int64_t now);
  // `job` starts at `now`: its first plan, if it had one, is measured and
  // cleared (a requeued job is planned afresh).
  void Started(wire::JobRecord& job, int64_t now);

  wire::StartForecastRatios Ratios() const { return calibration_.Ratios(); }

 private:
  sched::RuntimePredictor predictor_;
  model::StartForecastCalibration calibration_;
};

}  // namespace rota::ctld
