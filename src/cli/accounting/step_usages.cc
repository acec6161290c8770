#include "cli/accounting/step_usages.h"

namespace rota::cli {

std::vector<const wire::StepUsage*> StepUsages(const wire::AccountingJob& job) {
  std::vector<const wire::StepUsage*> usages;
  if (job.has_batch_usage()) usages.push_back(&job.batch_usage());
  for (const wire::AccountingStep& step : job.steps()) {
    if (step.has_usage()) usages.push_back(&step.usage());
  }
  return usages;
}

const wire::StepUsage* MostSampledGpuStep(const wire::AccountingJob& job) {
  const wire::StepUsage* best = nullptr;
  for (const wire::StepUsage* u : StepUsages(job)) {
    const wire::GpuUsage& g = u->gpu();
    if (g.samples() == 0) continue;
    if (best == nullptr || g.samples() > best->gpu().samples() ||
        (g.samples() == best->gpu().samples() && g.gpus() > best->gpu().gpus())) {
      best = u;
    }
  }
  return best;
}

}  // namespace rota::cli
