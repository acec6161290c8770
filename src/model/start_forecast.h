#pragma once

// How far a planned start can be trusted. A backfill plan assumes that every
// job ahead runs to its time limit (or to its predicted runtime) and that no
// job of higher priority arrives; neither holds, so a planned start is a
// guess. The controller compares each job's first planned start with its
// real one and keeps, over the last jobs, the ratio of the wait it had to the
// wait planned. A plan is then shown as a range: the start by which half of
// the past jobs had started (P50) and nine in ten (P90), scaled to this plan.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rota.pb.h"

namespace rota::model {

struct StartRange {
  int64_t p50 = 0;
  int64_t p90 = 0;
};

class StartForecastCalibration {
 public:
  static constexpr size_t kWindow = 1000;      // The most recent jobs measured
  static constexpr uint32_t kMinSamples = 20;  // Fewer: no range

  // A job planned at `planned_at` to start at `planned_start` started at `started`.
  void Started(int64_t planned_at, int64_t planned_start, int64_t started);
  wire::StartForecastRatios Ratios() const;

 private:
  std::vector<double> ratios_;  // A ring of kWindow
  size_t next_ = 0;
  mutable std::optional<wire::StartForecastRatios> cached_;
};

// `planned_start`, planned before `now`, as a range; nullopt when there is no
// plan (0) or too few jobs were measured.
std::optional<StartRange> ForecastRange(int64_t planned_start, int64_t now,
                                        const wire::StartForecastRatios& ratios);

}  // namespace rota::model
