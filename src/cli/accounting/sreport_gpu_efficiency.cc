#include "cli/accounting/sreport_gpu_efficiency.h"

#include <fmt/format.h>

#include <algorithm>

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

  std::vector<PlainColumn> columns = {Column("Cluster", 9, o)};
  if (!by_account) {
    columns.push_back(Column("Login", 9, o));
    columns.push_back(Column("Proper Name", 15, o));
  }
  columns.push_back(Column("Account", 15, o));
  columns.push_back(Column("Allocated", 10, o));
  columns.push_back(Column("Used", 10, o));
  columns.push_back(Column("Efficiency", 10, o));
  columns.push_back(Column("Unmeasured", 10, o));
  columns.push_back(Column("Jobs", 6, o));
  ReportTime plain = o.time;
  plain.percent = false;  // Efficiency is the share that matters here
  std::vector<std::vector<std::string>> lines;
  for (const Row& r : ranked) {
    std::vector<std::string> line = {cluster};
    if (!by_account) {
      auto proper = proper_names.find(r.user);
      line.push_back(r.user);
      line.push_back(proper == proper_names.end() ? "" : proper->second);
    }
    line.push_back(r.account);
    line.push_back(TimeValue(r.allocated, 0, plain));
    line.push_back(TimeValue(r.used, 0, plain));
    line.push_back(r.allocated > 0 ? fmt::format("{:.2f}%", 100.0 * r.used / r.allocated)
                                   : std::string("N/A"));
    line.push_back(TimeValue(r.unmeasured, 0, plain));
    line.push_back(std::to_string(r.jobs));
    lines.push_back(std::move(line));
  }
  out += RenderColumns(columns, o.layout, o.no_header, lines);
  return out;
}

}  // namespace rota::cli
