#include "model/start_forecast.h"

#include <algorithm>
#include <cmath>

namespace rota::model {
namespace {

// Added to both waits, so that a plan of "now" that started a minute later
// is a ratio of 2, not infinite; and a range is never narrower than that.
constexpr int64_t kSlackS = 60;

double Quantile(std::vector<double>& sorted, double q) {
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

void StartForecastCalibration::Started(int64_t planned_at, int64_t planned_start, int64_t started) {
  const double had = static_cast<double>(std::max<int64_t>(started - planned_at, 0) + kSlackS);
  const double planned =
      static_cast<double>(std::max<int64_t>(planned_start - planned_at, 0) + kSlackS);
  if (ratios_.size() < kWindow) {
    ratios_.push_back(had / planned);
  } else {
    ratios_[next_] = had / planned;
    next_ = (next_ + 1) % kWindow;
  }
  cached_.reset();
}

wire::StartForecastRatios StartForecastCalibration::Ratios() const {
  if (cached_) return *cached_;
  wire::StartForecastRatios out;
  out.set_samples(static_cast<uint32_t>(ratios_.size()));
  if (!ratios_.empty()) {
    std::vector<double> sorted = ratios_;
    std::sort(sorted.begin(), sorted.end());
    out.set_p50(Quantile(sorted, 0.5));
    out.set_p90(Quantile(sorted, 0.9));
  }
  cached_ = out;
  return out;
}

std::optional<StartRange> ForecastRange(int64_t planned_start, int64_t now,
                                        const wire::StartForecastRatios& ratios) {
  if (planned_start <= 0 || ratios.samples() < StartForecastCalibration::kMinSamples) {
    return std::nullopt;
  }
  const double wait = static_cast<double>(std::max<int64_t>(planned_start - now, 0) + kSlackS);
  auto at = [&](double ratio) {
    return now + std::max<int64_t>(std::llround(ratio * wait) - kSlackS, 0);
  };
  return StartRange{at(ratios.p50()), at(ratios.p90())};
}

}  // namespace rota::model
