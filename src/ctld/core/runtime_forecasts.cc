#include "ctld/core/runtime_forecasts.h"

#include <algorithm>

namespace rota::ctld {

std::optional<RuntimeForecasts::EndedRun> RuntimeForecasts::TellingRun(uint32_t uid,
                                                                       int64_t start_time,
                                                                       int64_t end_time,
                                                                       wire::JobState state) {
  if (start_time <= 0 || end_time < start_time ||
      std::find(kTellingStates.begin(), kTellingStates.end(), state) == kTellingStates.end()) {
    return std::nullopt;
  }
  return EndedRun{end_time, uid, end_time - start_time};
}

void RuntimeForecasts::RunEnded(const wire::JobRecord& job, wire::JobState state) {
  if (std::optional<EndedRun> run =
          TellingRun(job.spec().uid(), job.start_time(), job.end_time(), state)) {
    predictor_.Finished(run->uid, run->runtime_s);
  }
}

void RuntimeForecasts::Relearn(std::vector<EndedRun> runs) {
  std::stable_sort(runs.begin(), runs.end(),
                   [](const EndedRun& a, const EndedRun& b) { return a.end_time < b.end_time; });
  predictor_ = sched::RuntimePredictor();
  for (const EndedRun& r : runs) predictor_.Finished(r.uid, r.runtime_s);
}

int64_t RuntimeForecasts::PlannedRuntime(uint32_t uid, int64_t limit_s) const {
  const int64_t predicted = predictor_.Predict(uid);
  // A job without a limit is planned to run for ever once running
  // (PlannedEnd), so a prediction for it would plan it both ways.
  return predicted > 0 && limit_s > 0 && predicted < limit_s ? predicted : 0;
}

void RuntimeForecasts::NotePlanned(wire::JobRecord& job, int64_t start, int64_t now) {
  if (start <= 0 || job.first_planned_at() != 0) return;
  job.set_first_planned_start(start);
  job.set_first_planned_at(now);
}

void RuntimeForecasts::Started(wire::JobRecord& job, int64_t now) {
  if (job.first_planned_at() == 0) return;
  calibration_.Started(job.first_planned_at(), job.first_planned_start(), now);
  job.clear_first_planned_start();
  job.clear_first_planned_at();
}

}  // namespace rota::ctld
