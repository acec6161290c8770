#include "cli/accounting/sacct_size_filters.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::cli {

Result<CountRange> ParseCountRange(std::string_view text) {
  const size_t dash = text.find('-');
  std::optional<uint64_t> min = ParseUint(text.substr(0, dash));
  std::optional<uint64_t> max =
      dash == std::string_view::npos ? min : ParseUint(text.substr(dash + 1));
  if (!min || !max || *max < *min) {
    return InvalidArgument(fmt::format("invalid range \"{}\": give N or MIN-MAX", text));
  }
  return CountRange{*min, *max};
}

bool SacctSizeFilters::Pass(const wire::AccountingJob& job) const {
  auto within = [](const std::optional<CountRange>& range, uint64_t value) {
    return !range || (value >= range->min && value <= range->max);
  };
  if (!within(nodes, job.alloc_nodes()) || !within(cpus, job.alloc_cpus())) return false;
  if (limit_min_s) {
    // An unlimited job has the longest limit of all.
    const int64_t limit = job.time_limit_s() > 0 ? job.time_limit_s() : INT64_MAX;
    if (limit < *limit_min_s) return false;
    if (limit_max_s && limit > *limit_max_s) return false;
  }
  if (!reasons.empty() && std::none_of(reasons.begin(), reasons.end(), [&](const std::string& r) {
        return EqualsIgnoreCase(r, job.reason());
      })) {
    return false;
  }
  return true;
}

}  // namespace rota::cli
