#include "cli/accounting/sreport_gpu_efficiency.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/accounting/sreport_fields.h"
#include "cli/accounting/step_usages.h"

namespace rota::cli {
namespace {

struct Row {
  std::string user;
  std::string account;
  double allocated = 0;   // GPU-seconds of sampled jobs
  double used = 0;        // Of those, weighted by utilisation
  double unmeasured = 0;  // GPU-seconds of jobs never sampled
  int jobs = 0;
};

std::string_view UnitWord(ReportUnit unit) {
  switch (unit) {
    case ReportUnit::kSeconds:
      return "Seconds";
    case ReportUnit::kHours:
      return "Hours";
    case ReportUnit::kMinutes:
      break;
  }
  return "Minutes";
}

}  // namespace

std::string GpuEfficiencyReport(const std::string& cluster,
                                const std::vector<wire::AccountingJob>& jobs,
                                const ReportWindow& window, bool by_account,
                                const std::map<std::string, std::string>& proper_names,
                                const ReportOptions& o) {
  std::string out;
  if (!o.no_header) {
    const std::string rule(80, '-');
    out +=
        fmt::format("{}\nGPU Efficiency by {} {} - {} ({} secs)\nUsage reported in GPU {}\n{}\n",
                    rule, by_account ? "Account" : "User", LocalStamp(window.start, o.utc_offset_s),
                    LocalStamp(window.end - 1, o.utc_offset_s), window.end - window.start,
                    UnitWord(o.time.unit), rule);
  }
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const wire::AccountingJob& job : jobs) {
    const double held = AllocatedTresSeconds(job, "gres/gpu", window, o.now);
    if (held <= 0) continue;
    Row& r = rows[{by_account ? std::string() : job.user(), job.account()}];
    r.user = by_account ? "" : job.user();
    r.account = job.account();
    ++r.jobs;
    const wire::StepUsage* sampled = MostSampledGpuStep(job);
    if (sampled == nullptr || sampled->gpu().gpus() == 0) {
      r.unmeasured += held;
      continue;
    }
    // util_ave sums the step's GPUs: per GPU, it is that over their number.
    const double per_gpu = sampled->gpu().util_ave() / sampled->gpu().gpus() / 100.0;
    r.allocated += held;
    r.used += held * std::clamp(per_gpu, 0.0, 1.0);
  }
  std::vector<Row> ranked;
  for (auto& [key, r] : rows) ranked.push_back(std::move(r));
  std::stable_sort(ranked.begin(), ranked.end(), [](const Row& a, const Row& b) {
    const double x = a.allocated + a.unmeasured, y = b.allocated + b.unmeasured;
    return x != y ? x > y : std::tie(a.user, a.account) < std::tie(b.user, b.account);
  });

  std::vector<GpuEfficiencyLine> lines;
  for (const Row& r : ranked) {
    GpuEfficiencyLine line;
    line.cluster = cluster;
    if (!by_account) {
      auto proper = proper_names.find(r.user);
      line.login = r.user;
      line.proper_name = proper == proper_names.end() ? "" : proper->second;
    }
    line.account = r.account;
    line.allocated = r.allocated;
    line.used = r.used;
    line.unmeasured = r.unmeasured;
    line.jobs = r.jobs;
    lines.push_back(std::move(line));
  }
  out += RenderGpuEfficiency(by_account, lines, o);
  return out;
}

}  // namespace rota::cli
