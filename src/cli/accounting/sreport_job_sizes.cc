#include "cli/accounting/sreport_job_sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "cli/accounting/sreport_fields.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

// The account one level below `parent` that `account` belongs to; "" when
// it is not under `parent`; `parent` itself for jobs run in it.
std::string RowOf(const AssocTree& tree, const std::string& parent, const std::string& account) {
  std::string at = account;
  for (int depth = 0; depth < 64; ++depth) {
    if (at == parent) return parent;
    auto it = tree.parent_of.find(at);
    if (it == tree.parent_of.end() || it->second.empty()) return "";
    if (it->second == parent) return at;
    at = it->second;
  }
  return "";
}

}  // namespace

Result<std::vector<uint32_t>> ParseGrouping(std::string_view text) {
  std::vector<uint32_t> out;
  for (std::string_view item : Split(text, ',')) {
    std::optional<uint64_t> n = ParseUint(Trim(item));
    if (!n || *n == 0 || *n > UINT32_MAX || (!out.empty() && *n <= out.back())) {
      return InvalidArgument(fmt::format("Invalid Grouping: {}", text));
    }
    out.push_back(static_cast<uint32_t>(*n));
  }
  if (out.empty()) return InvalidArgument(fmt::format("Invalid Grouping: {}", text));
  return out;
}

std::string JobSizesByAccountReport(const std::string& cluster,
                                    const std::vector<wire::AccountingJob>& jobs,
                                    const AssocTree& tree, const ReportWindow& window,
                                    const JobSizesOptions& sizes, const ReportOptions& o) {
  std::string out;
  if (!o.no_header) {
    const std::string rule(80, '-');
    const std::string units =
        sizes.print_job_count ? "Units are in number of jobs ran"
                              : "Time reported in CPU " +
                                    std::string(o.time.unit == ReportUnit::kSeconds ? "Seconds"
                                                : o.time.unit == ReportUnit::kHours ? "Hours"
                                                                                    : "Minutes");
    out += fmt::format(
        "{}\nJob Sizes {} - {} ({} secs)\n{}\n{}\n", rule, LocalStamp(window.start, o.utc_offset_s),
        LocalStamp(window.end - 1, o.utc_offset_s), window.end - window.start, units, rule);
  }
  // Range i holds jobs of [bound(i-1), bound(i)) CPUs; the last is open.
  const std::vector<uint32_t>& g = sizes.grouping;
  auto range_of = [&](uint32_t cpus) {
    return static_cast<size_t>(std::upper_bound(g.begin(), g.end(), cpus) - g.begin());
  };
  const std::vector<std::string> parents =
      sizes.parents.empty() ? std::vector<std::string>{"root"} : sizes.parents;
  // (parent, row account) -> value per range.
  std::map<std::pair<std::string, std::string>, std::vector<double>> rows;
  double all = 0;
  for (const wire::AccountingJob& job : jobs) {
    const double seconds = AllocatedTresSeconds(job, "cpu", window, o.now);
    if (seconds <= 0) continue;
    const double value = sizes.print_job_count ? 1.0 : seconds;
    for (const std::string& parent : parents) {
      std::string row = sizes.flat_view ? job.account() : RowOf(tree, parent, job.account());
      if (row.empty()) continue;
      auto& cells = rows[{parent, row}];
      cells.resize(g.size() + 1);
      cells[range_of(job.alloc_cpus())] += value;
      all += value;
      break;  // Counted once, under the first parent that holds it
    }
  }
  // The ranges and the total follow whatever columns format= chose.
  std::vector<PlainColumn> columns;
  for (size_t i = 0; i <= g.size(); ++i) {
    const std::string header = i == g.size()
                                   ? fmt::format(">= {} CPUs", g.back())
                                   : fmt::format("{}-{} CPUs", i == 0 ? 0 : g[i - 1], g[i] - 1);
    columns.push_back(Column(header, 13, o));
  }
  columns.push_back(Column("% of cluster", 12, o));
  std::vector<SizesLine> lines;
  ReportTime plain = o.time;
  plain.percent = false;
  if (sizes.print_job_count) plain.unit = ReportUnit::kSeconds;  // Counts as they are
  for (const auto& [key, cells] : rows) {
    SizesLine line{cluster, key.second, {}};
    double sum = 0;
    for (double v : cells) {
      line.cells.push_back(TimeValue(v, all, plain));
      sum += v;
    }
    line.cells.push_back(fmt::format("{:.2f}%", all > 0 ? 100.0 * sum / all : 0.0));
    lines.push_back(std::move(line));
  }
  out += RenderSizes(lines, columns, o);
  return out;
}

}  // namespace rota::cli
