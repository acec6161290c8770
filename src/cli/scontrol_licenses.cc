#include "cli/scontrol_licenses.h"

#include <fmt/format.h>

namespace rota::cli {

std::string FormatLicenses(const conf::LicenseCounts& cluster, const wire::ListJobsResponse& jobs,
                           const std::string& name, bool one_liner) {
  // In use: what the jobs holding an allocation asked for, as the controller counts.
  conf::LicenseCounts used;
  for (const wire::JobRecord& job : jobs.jobs()) {
    const wire::JobState s = job.state();
    if (job.spec().licenses().empty() ||
        (s != wire::JOB_STATE_RUNNING && s != wire::JOB_STATE_SUSPENDED &&
         s != wire::JOB_STATE_COMPLETING)) {
      continue;
    }
    for (const auto& [license, count] :
         conf::ParseLicenseList(job.spec().licenses()).value_or(conf::LicenseCounts{})) {
      used[license] += count;
    }
  }
  std::string out;
  for (const auto& [license, total] : cluster) {
    if (!name.empty() && license != name) continue;
    const uint32_t in_use = used[license];
    out +=
        fmt::format("LicenseName={}{}Total={} Used={} Free={} Reserved=0 Remote=no\n", license,
                    one_liner ? " " : "\n    ", total, in_use, total > in_use ? total - in_use : 0);
  }
  return out;
}

}  // namespace rota::cli
