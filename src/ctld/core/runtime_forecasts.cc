#include "ctld/core/runtime_forecasts.h"

#include <algorithm>

namespace rota::ctld {

bool RuntimeForecasts::Telling(wire::JobState state) {
  return state == wire::JOB_STATE_COMPLETED || state == wire::JOB_STATE_FAILED ||
         state == wire::JOB_STATE_TIMEOUT || state == wire::JOB_STATE_OUT_OF_MEMORY;
}

void RuntimeForecasts::RunEnded(const wire::JobRecord& job, wire::JobState state) {
  if (job.start_time() <= 0 || job.end_time() < job.start_time() || !Telling(state)) return;
  predictor_.Finished(job.spec().uid(), job.end_time() - job.start_time());
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
